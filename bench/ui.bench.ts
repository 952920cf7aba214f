// npm run bench:ui: from "open a snapshot" to decorations on screen, in a real VS Code (code-server),
// as a ratio of the engine's own time for the same file in the same extension host (load and
// analysis, from Headroom's log; the allocator replay, which runs after the decorations, included).
// Goal: the editor's work adds ≤ 20 %.
// Data: the largest real capture in bench/data (its frames are test/gpu/capture/big_trace.py's),
// else one made here that maps onto its workspace (see uiData).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Session } from '../test/e2e/harness/session';
import { benchSnapshot, realCapture } from './snapshots';

const ROOT = resolve(__dirname, '..');
const ROUNDS = Number(process.env.HEADROOM_BENCH_RUNS ?? 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
// A log line's time ("2026-11-28 05:33:43.123 [info] …"), in the same local clock as Date.now().
const logTime = (line: string): number => new Date(line.slice(0, 23).replace(' ', 'T')).getTime();

/**
 * The snapshot, the workspace its frames map onto, and the script that gets the decorations.
 * Without a real capture: the demo's real snapshot (train_leaky.py) mapped onto a copy of the demo
 * workspace, then repeated to 400,000 events like the loader's stand-in; its frames map there, so
 * the decorations appear (a stand-in made from another capture would map to no file).
 */
function uiData(): { path: string; what: string; ws: string; script: string } {
  const ws = mkdtempSync(join(tmpdir(), 'headroom-uibench-'));
  const real = realCapture(ROOT);
  if (real) {
    // The captures' frames point at test/gpu/capture/big_trace.py: a workspace holding it maps them.
    mkdirSync(join(ws, 'capture'));
    cpSync(join(ROOT, 'test', 'gpu', 'capture'), join(ws, 'capture'), { recursive: true, filter: (p) => !p.includes('__pycache__') });
    return { ...real, ws, script: 'big_trace.py' };
  }
  cpSync(join(ROOT, 'demo', 'workspace'), ws, { recursive: true, filter: (p) => !p.includes('__pycache__') });
  const mapped = join(ws, 'leaky_demo.pickle');
  execFileSync('python3', [
    join(ROOT, 'demo', 'map_frames.py'),
    join(ROOT, 'test', 'fixtures', 'snapshots', 'leaky_demo.pickle'),
    mapped,
    'train_leaky.py',
    join(ws, 'train_leaky.py'),
  ]);
  const { path } = benchSnapshot(ROOT, 400_000, mapped, join(ws, 'synth_leaky_400000.pickle'));
  return {
    path,
    ws,
    script: 'train_leaky.py',
    what: 'synthetic: the demo snapshot (H200, test/fixtures/snapshots/leaky_demo.pickle) mapped onto a copy of demo/workspace and repeated to 400,000 events (bench/synth_big.py)',
  };
}

async function main(): Promise<void> {
  const { path, what, ws, script } = uiData();
  const s = await Session.open({ workspace: ws });
  try {
    await s.activate(script);
    const totals: number[] = [];
    const engines: number[] = [];
    const editors: number[] = [];
    const dialogs: number[] = [];
    const afters: number[] = [];
    const allocators: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      // Off, so that the next decorations on screen are the new ones (opening turns them on).
      if (i > 0) await s.workbench.runCommand('Headroom: Toggle Memory Annotations');
      await s.workbench.openFile(script);
      await s.workbench.runCommand('Headroom: Open Memory Snapshot…');
      const before = s.log('Headroom.log').split('\n').length;
      let t0 = 0;
      await s.workbench.answerFileDialog(path, () => (t0 = Date.now()));
      await s.page.waitForFunction(
        () =>
          [...document.querySelectorAll('.editor-instance .view-lines span')].some((e) => {
            // Headroom's after-line figure, "▲ size".
            return getComputedStyle(e, '::after').content.includes('▲');
          }),
        undefined,
        { timeout: 300_000, polling: 20 },
      );
      const t1 = Date.now();
      const total = t1 - t0;
      // This round's allocator line: the (i + 1)th in the log (it is written after the decorations).
      const rounds = new RegExp(`(?:allocator replay \\d+ ms, after the decorations[\\s\\S]*?){${i + 1}}`);
      const lines = (await s.waitForLog('Headroom.log', rounds)).split('\n').slice(before - 1);
      const line = lines.find((l) => l.includes('engine: load'))!;
      // The window's share, apart: the dialog's answer reaching the command, the decorations reaching the page.
      dialogs.push(logTime(lines.find((l) => l.includes('] opening '))!) - t0);
      afters.push(t1 - logTime(line));
      const m = /engine: load (\d+) ms, analysis (\d+) ms; editor: mapping and annotations (\d+) ms/.exec(line)!;
      // The allocator replay runs once the decorations are on screen, and is the engine's all the same.
      const allocator = Number(/allocator replay (\d+) ms, after the decorations/.exec(lines.join('\n'))![1]);
      allocators.push(allocator);
      totals.push(total);
      engines.push(Number(m[1]) + Number(m[2]) + allocator);
      editors.push(Number(m[3]));
      // Back to the script for the next round (the summary panel took the editor).
      await s.workbench.openFile(script);
    }
    const t = median(totals);
    const e = median(engines);
    console.log(
      `snapshot: ${path}\n  ${what}, ${(statSync(path).size / 2 ** 20).toFixed(1)} MiB, ${ROUNDS} opens in one code-server session (median)\n`,
    );
    console.log(`open → decorations on screen      ${String(t).padStart(6)} ms   (${totals.join(', ')})`);
    console.log(`engine (load + analysis)          ${String(e).padStart(6)} ms   (${engines.join(', ')})`);
    console.log(`  allocator replay (after them)  ${String(median(allocators)).padStart(6)} ms   (${allocators.join(', ')})`);
    console.log(`editor work (mapping, annotating) ${String(median(editors)).padStart(6)} ms`);
    console.log(`  dialog's answer → command      ${String(median(dialogs)).padStart(6)} ms   (${dialogs.join(', ')})`);
    console.log(`  decorations set → on screen    ${String(median(afters)).padStart(6)} ms   (${afters.join(', ')})`);
    console.log(`ratio                              ${(t / e).toFixed(2)}×   goal ≤ 1.20×`);
  } finally {
    await s.close();
    rmSync(ws, { recursive: true, force: true });
  }
}

void main();
