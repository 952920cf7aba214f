import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice, resolveAt } from '../../extension/src/core/analysis/analyze';
import { attributeAt } from '../../extension/src/core/analysis/attributeAt';
import { mergeAllocConf, parseAllocConf, planRun } from '../../extension/src/core/run/launch';
import type { Sample } from '../../extension/src/core/run/protocol';
import { bestSnapshot, readRun } from '../../extension/src/core/run/runFolder';
import { liveStatus, statusText } from '../../extension/src/core/run/status';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { ROOT } from './helpers';

const RUN = join(ROOT, 'test', 'fixtures', 'runs', 'lm_train');

describe('a recorded run folder', () => {
  it('reads meta, events, backward() windows and snapshots', () => {
    const run = readRun(RUN);
    assert.equal(run.processes.length, 1);
    const p = run.processes[0]!;
    const events = readFileSync(join(RUN, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string });
    assert.equal(p.events.length, events.length);
    assert.equal(p.backward.length, events.filter((e) => e.event === 'backward').length);
    assert.equal(bestSnapshot(p)?.kind, 'peak');
    assert.equal((p.meta?.gpu as { name: string }).name, 'NVIDIA H200');
  });

  it("the editor's tail read of a long run's samples: the last ones only, the run's peak kept", () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'headroom-tail-')), 'run');
    mkdirSync(dir);
    writeFileSync(join(dir, 'meta.json'), '{"pid": 1}');
    const n = 20_000;
    const line = (i: number) =>
      JSON.stringify({
        t: i,
        device: 0,
        allocated: i,
        reserved: 2 * i,
        active: i,
        inactive_split: 0,
        requested: i,
        max_allocated: i * 3,
        max_reserved: 2 * i,
        max_requested: i,
        retries: 0,
        ooms: 0,
      });
    writeFileSync(join(dir, 'samples.jsonl'), Array.from({ length: n }, (_, i) => line(i)).join('\n') + '\n');
    const all = readRun(dir).processes[0]!.samples;
    const tail = readRun(dir, { samples: 'tail' }).processes[0]!.samples;
    assert.equal(all.length, n);
    assert.ok(tail.length > 10 && tail.length < n / 10, `${tail.length} samples in the tail`);
    assert.deepEqual(tail.at(-1), all.at(-1));
    assert.equal(Math.max(...tail.map((x) => x.max_allocated)), (n - 1) * 3);
    assert.equal(readRun(dir, { samples: 'none' }).processes[0]!.samples.length, 0);
  });

  it('its backward() windows credit frameless backward memory to the loss.backward() line', async () => {
    const p = readRun(RUN).processes[0]!;
    const line = p.backward[0]!;
    assert.ok(p.backward.every((b) => b.file === line.file && b.line === line.line));
    const s = await loadSnapshotFile(bestSnapshot(p)!.path);
    const plain = analyzeDevice(s, 0);
    const withCalls = analyzeDevice(s, 0, undefined, p.backward);
    let credited = 0;
    let creditedPlain = 0;
    for (let i = 0; i < withCalls.replay.n; i++) {
      const bw = attributeAt(s, withCalls, resolveAt(withCalls, i)).buckets.find((b) => b.kind === 'backward');
      for (const site of bw?.sites ?? []) {
        assert.deepEqual([site.file, site.line], [line.file, line.line]);
        credited += site.bytes;
      }
      const bp = attributeAt(s, plain, resolveAt(plain, i)).buckets.find((b) => b.kind === 'backward');
      creditedPlain += (bp?.sites ?? []).reduce((n, x) => n + x.bytes, 0);
    }
    assert.ok(credited > 0);
    assert.ok(credited >= creditedPlain, 'the recorded windows name at least what the stacks alone could');
  });
});

describe('launching', () => {
  it('puts the agent first on PYTHONPATH and arms it, keeping the user’s path', () => {
    const plan = planRun({
      script: '/w/train.py',
      runsDir: '/w/.headroom/runs',
      agentDir: '/ext/agent',
      socket: '/tmp/s',
      token: 't',
      baseEnv: { PYTHONPATH: '/mine' },
      now: new Date(2026, 10, 21, 9, 8, 7),
    });
    assert.equal(plan.env.PYTHONPATH, `/ext/agent${delimiter}/mine`);
    assert.equal(plan.env.HEADROOM_AGENT, '1');
    assert.match(plan.runId, /^20261121-090807-train-[0-9a-f]{4}$/);
    assert.equal(plan.runDir, join('/w/.headroom/runs', plan.runId));
  });

  it('merges allocator knobs into the user’s PYTORCH_CUDA_ALLOC_CONF', () => {
    assert.deepEqual(parseAllocConf('expandable_segments=True, max_split_size_mb:512'), {
      expandable_segments: 'True',
      max_split_size_mb: '512',
    });
    assert.throws(() => parseAllocConf('nonsense'), /not key=value/);
    assert.equal(
      mergeAllocConf('garbage_collection_threshold:0.6,max_split_size_mb:128', { max_split_size_mb: '512', expandable_segments: 'True' }),
      'garbage_collection_threshold:0.6,max_split_size_mb:512,expandable_segments:True',
    );
    const plan = planRun({
      script: 'x.py',
      runsDir: '/r',
      agentDir: '/a',
      settings: { allocConf: { expandable_segments: 'True' } },
      baseEnv: { PYTORCH_ALLOC_CONF: 'max_split_size_mb:64' },
    });
    assert.equal(
      plan.env.PYTORCH_ALLOC_CONF,
      'max_split_size_mb:64,expandable_segments:True',
      'the variable the user set is the one extended',
    );
  });

  it('passes the recording mode to the agent only when one is chosen (the agent defaults to windows)', () => {
    assert.equal(
      planRun({ script: 'x.py', runsDir: '/r', agentDir: '/a', settings: { record: 'full' }, baseEnv: {} }).env.HEADROOM_RECORD,
      'full',
    );
    assert.equal(planRun({ script: 'x.py', runsDir: '/r', agentDir: '/a', settings: {}, baseEnv: {} }).env.HEADROOM_RECORD, undefined);
    const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'run', '--record', 'sometimes', '--', 'python3', 'x.py'], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--record is window or full/);
  });
});

describe('live status', () => {
  const sample = (o: Partial<Sample>): Sample => ({
    type: 'sample',
    t: 0,
    device: 0,
    allocated: 0,
    reserved: 0,
    active: 0,
    inactive_split: 0,
    requested: 0,
    max_allocated: 0,
    max_reserved: 0,
    max_requested: 0,
    retries: 0,
    ooms: 0,
    ...o,
  });
  it('shows the rank with the most reserved memory, and warns on waste, retries and OOMs', () => {
    const GiB = 2 ** 30;
    const st = liveStatus([
      { rank: 0, sample: sample({ allocated: 10 * GiB, reserved: 12 * GiB, max_allocated: 11 * GiB }) },
      { rank: 1, sample: sample({ allocated: 9 * GiB, reserved: 20 * GiB, max_allocated: 13 * GiB, retries: 2 }) },
    ])!;
    assert.equal(st.worst.rank, 1);
    assert.equal(statusText(st), 'rank 1 9.00 / 20.0 GiB ▲13.0');
    assert.equal(st.warnings.length, 2);
    assert.match(st.warnings.join('\n'), /11\.0 GiB reserved but unallocated/);
    assert.match(st.warnings.join('\n'), /2 cudaMalloc retries/);
    assert.equal(liveStatus([]), undefined);
  });
});
