// The call tree on library-model captures made on this GPU host (test/gpu/capture/library/
// capture.sh and heldout.sh, run first): `headroom analyze --json` on each, where the library
// sources are installed, judged by libraryChecks.ts against Python's parser (X.classes.json).
// HEADROOM_LIBRARY_DIRS: the capture folders (default /tmp/lib,/tmp/lib-heldout); a summary
// table goes to HEADROOM_LIBRARY_TABLE when set.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { cudaAvailable, NO_GPU } from './cuda';
import { checkReport } from './libraryChecks';
import type { Classes, ReportJson } from './libraryChecks';

const ROOT = process.env.HEADROOM_ROOT ?? resolve(__dirname, '..', '..');
const CLI = process.env.HEADROOM_CLI ?? join(ROOT, 'dist', 'cli.js');
const DIRS = (process.env.HEADROOM_LIBRARY_DIRS ?? '/tmp/lib,/tmp/lib-heldout').split(',').filter((d) => existsSync(d));
const TABLE = process.env.HEADROOM_LIBRARY_TABLE;

/**
 * Plain recordings, and the snapshot Headroom analyzes in each run folder: the peak's (written as
 * a recording window closes), else the exit's (a short run's only window is still open at exit).
 */
function snapshots(dir: string, out: string[] = []): string[] {
  const names = readdirSync(dir).sort();
  const run = dir.includes('/run/');
  const pick =
    names.find((n) => /^snapshot-peak.*\.pickle(\.gz)?$/.test(n)) ?? names.find((n) => /^snapshot-exit.*\.pickle(\.gz)?$/.test(n));
  for (const name of names) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) snapshots(p, out);
    else if (/\.pickle(\.gz)?$/.test(name) && (!run || name === pick)) out.push(p);
  }
  return out;
}

const found = DIRS.flatMap((d) => snapshots(d));
const EXPECT = JSON.parse(readFileSync(join(ROOT, 'test', 'gpu', 'capture', 'library', 'expect.json'), 'utf8')) as Record<
  'tuned' | 'heldout',
  Record<string, string>
>;
/** The workload a capture is of: plain/NAME.pickle.gz or run/NAME/…/snapshot-peak.pickle.gz. */
const workload = (snap: string): string => /\/(?:plain\/([^/.]+)\.|run\/([^/]+)\/)/.exec(snap)?.slice(1).find(Boolean) ?? '';

describe('the model code beneath the user lines, on library-model captures', {
  skip: !cudaAvailable() ? NO_GPU : found.length ? false : 'no captures: run test/gpu/capture/library/capture.sh first',
}, () => {
  for (const snap of found) {
    it(snap, () => {
      const r = spawnSync(process.execPath, [CLI, 'analyze', snap, '--json'], { encoding: 'utf8', maxBuffer: 1 << 30 });
      assert.equal(r.status, 0, r.stderr);
      const report = JSON.parse(r.stdout) as ReportJson;
      const classesPath = snap.replace(/\.pickle(\.gz)?$/, '.classes.json');
      const classes = existsSync(classesPath) ? (JSON.parse(readFileSync(classesPath, 'utf8')) as Classes) : undefined;
      const { lines, problems } = checkReport(report, classes);
      for (const l of lines) {
        const row = `${snap}\t${l.line}\t${(l.share * 100).toFixed(1)}%\tcoverage ${(l.coverage * 100).toFixed(1)}%\tnamed ${l.named}\t${l.problems.join('; ') || 'ok'}\t${l.files.slice(0, 6).join(', ')}`;
        console.log(row);
        if (TABLE) appendFileSync(TABLE, row + '\n');
      }
      if (!lines.length && TABLE) appendFileSync(TABLE, `${snap}\t(no line over the breakdown share)\n`);
      const want = EXPECT.tuned[workload(snap)] ?? EXPECT.heldout[workload(snap)];
      const shown = lines.flatMap((l) => l.files);
      if (want && !shown.some((f) => f.includes(want))) problems.push(`${want} not shown (${shown.slice(0, 8).join(', ')})`);
      assert.deepEqual([...problems, ...lines.flatMap((l) => l.problems.map((p) => `${l.line}: ${p}`))], []);
    });
  }
});
