import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { ROOT } from './helpers';
import { MiB, T0, twoRanks, twoRanksWithModules } from './twoRanks';

const CLI = join(ROOT, 'dist', 'cli.js');
const headroom = (...args: string[]) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
};
describe('headroom ranks: a distributed run side by side', () => {
  before(() => {
    const b = spawnSync(process.execPath, [join(ROOT, 'esbuild.mjs')], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(b.status, 0, b.stderr);
  });

  it('each rank’s peak is PyTorch’s requested_bytes peak; the imbalance is their difference; lines differ by what analyze says of each snapshot', () => {
    const { dir, b64, b128 } = twoRanks();
    const r = headroom('ranks', dir, '--json', '--top', '5');
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.deepEqual(
      j.ranks.map((x: { rank: number }) => x.rank),
      [0, 1],
    );
    assert.equal(j.ranks[0].peak, b64.truth!.requested_bytes_peak);
    assert.equal(j.ranks[1].peak, b128.truth!.requested_bytes_peak, 'rank 1 has no samples: its snapshot’s replayed peak');
    assert.equal(j.ranks[1].reservedPeak, b128.truth!.max_memory_reserved);
    assert.equal(j.imbalance, Math.abs(b128.truth!.requested_bytes_peak - b64.truth!.requested_bytes_peak));
    assert.equal(j.ranks[0].outsidePytorch, 512 * MiB, 'the driver’s figure less PyTorch’s reserved');
    assert.equal(j.ranks[1].snapshot, 'snapshot-oom-1.pickle');
    // Each line's bytes per rank are what `headroom analyze` reports for that line of that rank's snapshot.
    const self = (path: string) =>
      new Map(
        (
          JSON.parse(headroom('analyze', path, '--json', '--top', '0').out).lines as { file: string; line: number; self_bytes: number }[]
        ).map((l) => [`${l.file}:${l.line}`, l.self_bytes]),
      );
    const [a, b] = [self(b64.path), self(b128.path)];
    assert.ok(j.lines.length > 0 && j.lines.length <= 5);
    for (const l of j.lines) {
      const key = `${l.file}:${l.line}`;
      assert.deepEqual(l.bytes, [a.get(key) ?? 0, b.get(key) ?? 0], key);
      assert.equal(l.spread, Math.abs((a.get(key) ?? 0) - (b.get(key) ?? 0)));
    }
    const spreads = [...new Set([...a.keys(), ...b.keys()])].map((k) => Math.abs((a.get(k) ?? 0) - (b.get(k) ?? 0))).sort((x, y) => y - x);
    assert.equal(j.lines[0].spread, spreads[0], 'the widest spread first');
  });

  it('an OOM on one rank shows where the others stood at that moment: their last sample before it', () => {
    const { dir } = twoRanks();
    const j = JSON.parse(headroom('ranks', dir, '--json').out);
    assert.equal(j.oom.rank, 1);
    assert.equal(j.oom.timeUs, T0 + 1_000_000);
    assert.equal(j.oom.others.length, 1);
    assert.equal(j.oom.others[0].rank, 0);
    assert.equal(j.oom.others[0].allocated, 300 * MiB, 'the sample 100 ms before the OOM, not the one after');
    assert.equal(j.oom.others[0].ageUs, 100_000);
    const text = headroom('ranks', dir);
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /Imbalance {2}\S+ \S+ \(rank 1 − rank 0\)/);
    assert.match(
      text.out,
      /Rank 1 ran out of memory at .*\n {2}rank 0: allocated 300 MiB, reserved \S+ \S+, outside PyTorch 512 MiB \(100 ms before\)/,
    );
  });

  it('with module scopes: the modules that differ, each rank’s self bytes as analyze --by module gives them', () => {
    const { dir, snapshots } = twoRanksWithModules();
    const r = headroom('ranks', dir, '--json', '--top', '8');
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    const self = (path: string) =>
      new Map(
        (
          JSON.parse(headroom('analyze', path, '--json', '--by', 'module').out).by_module.modules as { path: string; self_bytes: number }[]
        ).map((m) => [m.path, m.self_bytes]),
      );
    const [a, b] = snapshots.map(self) as [Map<string, number>, Map<string, number>];
    assert.ok(j.modules.length > 0 && j.modules.length <= 8);
    for (const m of j.modules) {
      assert.deepEqual(m.bytes, [a.get(m.path) ?? 0, b.get(m.path) ?? 0], m.path);
      assert.equal(m.spread, Math.abs((a.get(m.path) ?? 0) - (b.get(m.path) ?? 0)));
    }
    const widest = Math.max(...[...new Set([...a.keys(), ...b.keys()])].map((k) => Math.abs((a.get(k) ?? 0) - (b.get(k) ?? 0))));
    assert.equal(j.modules[0].spread, widest);
    assert.match(headroom('ranks', dir).out, /Modules that differ most between ranks/);
  });

  it('refuses what is not a distributed run, in one line', () => {
    const plainRun = mkdtempSync(join(tmpdir(), 'headroom-ranks-'));
    mkdirSync(join(plainRun, 'r1'));
    writeFileSync(join(plainRun, 'r1', 'meta.json'), '{}');
    const r = headroom('ranks', join(plainRun, 'r1'));
    assert.equal(r.code, 2);
    assert.match(r.err, /no rank folders/);
    assert.equal(r.err.trim().split('\n').length, 1);
    assert.equal(headroom('ranks', join(plainRun, 'missing')).code, 2);
  });
});
