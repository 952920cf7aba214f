import assert from 'node:assert/strict';
import { linkSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { oomsWithin } from '../../extension/src/core/diagnose/explainSnapshot';
import { maxSplit } from '../../extension/src/core/diagnose/remedies';
import { GPU_AT_OOM, othersAtOom } from '../../extension/src/core/gpu/atOom';
import { crossRank } from '../../extension/src/core/run/ranks';
import { readRun } from '../../extension/src/core/run/runFolder';

// Issue 39's analyses, at the unit level: what was made cheaper gives what the plain way gave.

/** A small deterministic generator (mulberry32), so that a failure reproduces. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

type Procs = { pid: number; used: number | null }[];
interface Line {
  t: number;
  device: number;
  run: number[];
  reading: { devices: { index: number; processes: { pid: number; used?: number }[] }[] };
}

/** The reading nearest the OOM as the doctor first found it: a scan of every line, per OOM. */
function scanned(lines: Line[], device: number, t: number | null): Procs {
  let best: Line | undefined;
  for (const e of lines) {
    if (e.device !== device) continue;
    if (!best || (t !== null && Math.abs(e.t - t) < Math.abs(best.t - t))) best = e;
  }
  const gpu = best?.reading.devices.find((d) => d.index === device);
  if (!gpu) return [];
  const procs = gpu.processes.map((p) => ({ pid: p.pid, used: p.used ?? null }));
  if (!procs.some((p) => best!.run.includes(p.pid))) return [];
  return procs.filter((p) => !best!.run.includes(p.pid));
}

describe('cost bounded by the input: the analyses (issue 39)', () => {
  it('the nearest GPU reading, read once, is the one a scan of every line finds (ties to the earlier line)', () => {
    const r = rng(39);
    for (let round = 0; round < 20; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'headroom-atoom-cost-'));
      const lines: Line[] = [];
      // Few distinct times, so that equal times and equal distances on both sides are common.
      for (let i = 0; i < 60; i++) {
        const device = Math.floor(r() * 2);
        const own = 100 + Math.floor(r() * 2);
        lines.push({
          t: Math.floor(r() * 12) * 10,
          device,
          run: [own],
          reading: {
            devices: [
              {
                index: device,
                processes: [
                  { pid: own, used: 5 },
                  { pid: 7000 + i, used: i },
                ],
              },
            ],
          },
        });
      }
      writeFileSync(join(dir, GPU_AT_OOM), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
      const snap = join(dir, 'snapshot-oom.pickle');
      for (const t of [null, -5, 0, 5, 15, 35, 55, 110, 115, 200])
        for (const d of [0, 1, 2]) assert.deepEqual(othersAtOom(snap, d, t), scanned(lines, d, t), `round ${round}, device ${d}, t ${t}`);
      // A new version of the file is read again, not served from the first reading.
      const later = lines.map((l) => ({ ...l, t: l.t + 1000 }));
      writeFileSync(join(dir, GPU_AT_OOM), later.map((l) => JSON.stringify(l)).join('\n') + '\n\n');
      assert.deepEqual(othersAtOom(snap, 0, 1035), scanned(later, 0, 1035));
    }
  });

  it('the max_split_size remedy over 200,000 blocks between holes: no RangeError, the same N as a short list', () => {
    const many = Array.from({ length: 200_000 }, (_, i) => (i % 7) * 2 ** 20);
    const few = [0, 6 * 2 ** 20];
    assert.deepEqual(maxSplit(64 * 2 ** 20, many), maxSplit(64 * 2 ** 20, few));
    assert.match(maxSplit(512 * 2 ** 20, [40 * 2 ** 20]).title, /max_split_size_mb:64/);
  });

  it('the doctor diagnoses OOMs within its budget: always the first, then while the walks fit', () => {
    assert.deepEqual(
      oomsWithin([5, 5, 5], (x) => x, 12),
      { kept: [5, 5], left: 1 },
    );
    assert.deepEqual(
      oomsWithin([50, 5], (x) => x, 12),
      { kept: [50], left: 1 },
    );
    assert.deepEqual(
      oomsWithin([1, 2, 3], (x) => x),
      { kept: [1, 2, 3], left: 0 },
    );
  });

  it('ranks: the few samples read per rank give the figures every sample gives; hard links are read once', () => {
    const r = rng(7);
    for (let round = 0; round < 15; round++) {
      const base = mkdtempSync(join(tmpdir(), 'headroom-ranks-cost-'));
      const run = join(base, 'run');
      mkdirSync(run);
      writeFileSync(join(run, 'meta.json'), '{}');
      let shared = '';
      for (let k = 0; k < 3; k++) {
        const dir = join(base, `run-rank${k}`);
        mkdirSync(dir);
        writeFileSync(join(dir, 'meta.json'), JSON.stringify({ rank: k }));
        const samples: string[] = [];
        for (let i = 0; i < 80; i++) {
          const t = Math.floor(r() * 30);
          samples.push(
            JSON.stringify({
              t,
              device: 0,
              allocated: Math.floor(r() * 100),
              reserved: Math.floor(r() * 200),
              max_allocated: 1,
              max_requested: Math.floor(r() * 9),
              max_reserved: Math.floor(r() * 9),
              ...(r() < 0.5 ? { device_used: Math.floor(r() * 400) } : {}),
            }),
          );
        }
        if (k === 2 && round % 2) linkSync(shared, join(dir, 'samples.jsonl'));
        else writeFileSync(join(dir, 'samples.jsonl'), samples.join('\n') + '\n');
        if (k === 0) shared = join(dir, 'samples.jsonl');
        const events = r() < 0.7 ? [{ type: 'event', event: 'oom', t: Math.floor(r() * 30) }] : [];
        writeFileSync(join(dir, 'events.jsonl'), events.map((e) => JSON.stringify(e)).join('\n') + '\n');
      }
      const all = readRun(run);
      const few = readRun(run, { samples: 'ranks' });
      const none = () => undefined;
      assert.deepEqual(crossRank(few, none), crossRank(all, none), `round ${round}`);
      for (const p of few.processes) assert.ok(p.samples.length <= 4);
      if (round % 2) assert.equal(all.processes[3]!.samples, all.processes[1]!.samples, 'a hard link: one array');
      else assert.notEqual(all.processes[3]!.samples, all.processes[1]!.samples);
    }
  });
});
