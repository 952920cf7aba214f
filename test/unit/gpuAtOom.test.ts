import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { GPU_AT_OOM, othersAtOom, recordGpuAtOom } from '../../extension/src/core/gpu/atOom';
import type { GpuAtOom } from '../../extension/src/core/gpu/atOom';
import type { GpuProbe, GpuResult } from '../../extension/src/core/gpu/types';
import { ROOT } from './helpers';

// The GPU reading a run keeps at an OOM (test/fixtures/runs/non_pytorch_oom: the CLI's NVML reading
// on an H100 while another process held memory), found from the snapshot's folder or a rank's.
const RUN = join(ROOT, 'test', 'fixtures', 'runs', 'non_pytorch_oom');
const reading = JSON.parse(readFileSync(join(RUN, GPU_AT_OOM), 'utf8').trim()) as GpuAtOom;
const truth = JSON.parse(readFileSync(join(RUN, 'truth.json'), 'utf8')) as { pid: number; processes: { pid: number; used: number }[] };
const probe = (read: () => Promise<GpuResult>): GpuProbe => ({ source: 'nvml', fallbackReasons: [], read });

describe('GPU readings at an OOM', () => {
  it('names the processes that are not the run’s, as pynvml listed them in the workload', () => {
    assert.deepEqual(reading.run, [truth.pid], 'the agent that ran out');
    const others = othersAtOom(join(RUN, 'snapshot-oom-1.pickle'), 0, reading.t);
    assert.deepEqual(
      others,
      truth.processes.filter((p) => p.pid !== truth.pid),
    );
    assert.deepEqual(othersAtOom(join(RUN, 'snapshot-oom-1.pickle'), 1, reading.t), [], 'another device: nothing');
  });

  it('a torchrun rank’s snapshot finds the reading in the run’s folder beside it', () => {
    const base = mkdtempSync(join(tmpdir(), 'headroom-atoom-'));
    const run = join(base, '20261122-091517-train');
    const rank = `${run}-rank0`;
    mkdirSync(run);
    mkdirSync(rank);
    copyFileSync(join(RUN, GPU_AT_OOM), join(run, GPU_AT_OOM));
    copyFileSync(join(RUN, 'snapshot-oom-1.pickle'), join(rank, 'snapshot-oom-1.pickle'));
    assert.deepEqual(
      othersAtOom(join(rank, 'snapshot-oom-1.pickle'), 0, null),
      truth.processes.filter((p) => p.pid !== truth.pid),
    );
  });

  it('the nearest reading to the OOM wins; torn lines are skipped', () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-atoom-'));
    const later = {
      ...reading,
      t: reading.t + 60e6,
      reading: { ...reading.reading, devices: reading.reading.devices.map((d) => ({ ...d, processes: [] })) },
    };
    writeFileSync(join(dir, GPU_AT_OOM), `${JSON.stringify(later)}\n{"t": 1, "dev\n${JSON.stringify(reading)}\n`);
    assert.deepEqual(
      othersAtOom(join(dir, 'x.pickle'), 0, reading.t),
      truth.processes.filter((p) => p.pid !== truth.pid),
    );
    assert.deepEqual(othersAtOom(join(dir, 'x.pickle'), 0, later.t), []);
  });

  it('in another pid namespace (none of the run’s pids listed), no process is named: the run’s own could not be told apart', () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-atoom-'));
    writeFileSync(join(dir, GPU_AT_OOM), `${JSON.stringify({ ...reading, run: [12] })}\n`);
    assert.deepEqual(othersAtOom(join(dir, 'x.pickle'), 0, reading.t), []);
  });

  it('recording never throws: a failed read or a vanished folder writes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-atoom-'));
    const at = { t: reading.t, device: 0, run: [1] };
    await recordGpuAtOom(
      probe(async () => ({ ok: false, source: 'nvml', reason: 'NVML: Driver Not Loaded' })),
      dir,
      at,
    );
    await recordGpuAtOom(
      probe(async () => ({ ok: true, snapshot: reading.reading })),
      join(dir, 'gone', 'deeper'),
      at,
    );
    await assert.rejects(async () => readFileSync(join(dir, GPU_AT_OOM)));
    await recordGpuAtOom(
      probe(async () => ({ ok: true, snapshot: reading.reading })),
      dir,
      at,
    );
    assert.deepEqual((JSON.parse(readFileSync(join(dir, GPU_AT_OOM), 'utf8')) as GpuAtOom).reading, reading.reading);
  });
});
