import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { chooseProbe } from '../../extension/src/core/gpu/probe';
import type { NvmlAddon, SmiRunner } from '../../extension/src/core/gpu/probe';
import { ProcessHistory } from '../../extension/src/core/gpu/history';
import { processMemory } from '../../extension/src/core/gpu/process';
import { renderGpus } from '../../extension/src/core/gpu/render';
import { SMI_GPU_FIELDS_OLD, SmiParseError, parseSmiApps, parseSmiGpus } from '../../extension/src/core/gpu/smi';
import type { GpuSnapshot } from '../../extension/src/core/gpu/types';
import { ROOT } from './helpers';

// nvidia-smi's answers captured on an H100 (test/fixtures/nvidia-smi), against pynvml's figures
// taken at the same moment; and the probe's order: addon, then nvidia-smi, then nothing.
const DIR = join(ROOT, 'test', 'fixtures', 'nvidia-smi');
const read = (f: string) => readFileSync(join(DIR, f), 'utf8');
const MiB = 2 ** 20;
interface Truth {
  driver: string;
  devices: {
    index: number;
    v2: { total: number; used: number; free: number; reserved: number };
    processes: { pid: number; used: number }[];
  }[];
}

describe('nvidia-smi parser and the GPU probe', () => {
  for (const phase of ['context', 'holding']) {
    it(`reads the ${phase} capture as pynvml saw it (within nvidia-smi's 1 MiB rounding)`, () => {
      const truth = JSON.parse(read(`${phase}.truth.json`)) as Truth;
      const { devices, driver } = parseSmiGpus(read(`gpu-${phase}.csv`));
      assert.equal(driver, truth.driver);
      assert.equal(devices.length, truth.devices.length);
      for (const [d, t] of devices.map((d, i) => [d, truth.devices[i]!] as const)) {
        assert.equal(d.index, t.index);
        for (const k of ['total', 'used', 'free', 'reserved'] as const)
          assert.ok(Math.abs(d[k]! - t.v2[k]) <= MiB, `${k}: ${d[k]} vs ${t.v2[k]}`);
        assert.match(d.uuid, /^GPU-[0-9a-f-]{36}$/);
      }
      const apps = parseSmiApps(read(`apps-${phase}.csv`));
      const procs = apps.get(devices[0]!.uuid) ?? [];
      assert.deepEqual(
        procs.map((p) => p.pid),
        truth.devices[0]!.processes.map((p) => p.pid),
      );
      for (const [p, t] of procs.map((p, i) => [p, truth.devices[0]!.processes[i]!] as const)) assert.ok(Math.abs(p.used! - t.used) <= MiB);
    });
  }

  it('reads an idle device (no processes: an empty answer) and the query without memory.reserved', () => {
    assert.equal(parseSmiApps(read('apps-idle.csv')).size, 0);
    assert.equal(parseSmiGpus(read('gpu-idle.csv')).devices[0]!.used, 0, 'nvidia-smi counts the driver’s share apart');
    // Both taken while the same 4 GiB were held.
    const full = parseSmiGpus(read('gpu-holding-earlier.csv')).devices[0]!;
    const old = parseSmiGpus(read('gpu-old-fields.csv'), SMI_GPU_FIELDS_OLD).devices[0]!;
    assert.equal(old.reserved, null);
    assert.deepEqual([old.total, old.used, old.free, old.uuid], [full.total, full.used, full.free, full.uuid]);
  });

  it('says which line it could not read, and reads unknowns as null', () => {
    assert.throws(
      () => parseSmiGpus('0, GPU, GPU-x, 81559\n'),
      (e: unknown) => e instanceof SmiParseError && e.line === '0, GPU, GPU-x, 81559',
    );
    const na = parseSmiGpus(read('gpu-idle.csv').replace(/, 0, 0, 580/, ', [N/A], [Not Supported], 580')).devices[0]!;
    assert.deepEqual([na.gpuUtil, na.memUtil], [null, null]);
    assert.deepEqual(parseSmiApps('GPU-a, 12, [N/A]\n').get('GPU-a'), [{ pid: 12, used: null }]);
  });

  it('non-PyTorch (process used − reserved) while holding 4 GiB is the CUDA context measured before', () => {
    // report.json: the GPU test's figures; context_mib came from the earlier phase's reading.
    const report = JSON.parse(read('report.json')) as { torch_reserved: number; context_mib: number };
    const { devices, driver } = parseSmiGpus(read('gpu-holding.csv'));
    const apps = parseSmiApps(read('apps-holding.csv'));
    const snap: GpuSnapshot = {
      source: 'nvidia-smi',
      driver,
      at: 0,
      devices: devices.map((d) => ({ ...d, processes: apps.get(d.uuid) ?? [] })),
    };
    const pid = snap.devices[0]!.processes[0]!.pid;
    const m = processMemory(snap, pid, report.torch_reserved);
    assert.ok(m);
    assert.ok(Math.abs(m.nonPyTorch / MiB - report.context_mib) <= 1, `${m.nonPyTorch / MiB} MiB vs ${report.context_mib} MiB`);
    assert.equal(processMemory(snap, pid + 1, report.torch_reserved), undefined, 'a pid the driver does not list (another namespace)');
    const text = renderGpus({ ok: true, snapshot: snap }, new Map([[pid, 'python3 hold_memory.py']]));
    assert.match(text, new RegExp(`GPU 0  ${devices[0]!.name}  ${devices[0]!.uuid}`));
    assert.match(text, new RegExp(`${pid} +4\\.\\d+ GiB +python3 hold_memory\\.py`));
    assert.match(
      renderGpus({ ok: false, source: 'none', reason: 'no GPU information: nvidia-smi did not run' }),
      /No GPU information \(none\): no GPU information: nvidia-smi did not run/,
    );
  });

  it('a process’s device use over time: the reading nearest a sample, none when too far', () => {
    const { devices, driver } = parseSmiGpus(read('gpu-holding.csv'));
    const apps = parseSmiApps(read('apps-holding.csv'));
    const ctx = parseSmiApps(read('apps-context.csv'));
    const snap = (at: number, a: typeof apps): GpuSnapshot => ({
      source: 'nvidia-smi',
      driver,
      at,
      devices: devices.map((d) => ({ ...d, processes: a.get(d.uuid) ?? [] })),
    });
    const before = [...ctx.values()][0]![0]!;
    const after = [...apps.values()][0]![0]!;
    const h = new ProcessHistory();
    h.add(snap(1000, new Map([[devices[0]!.uuid, [{ pid: after.pid, used: before.used }]]])));
    h.add(snap(2000, apps));
    assert.equal(h.usedAt(after.pid, 1400), before.used);
    assert.equal(h.usedAt(after.pid, 1600), after.used);
    assert.equal(h.usedAt(after.pid, 3400), after.used);
    assert.equal(h.usedAt(after.pid, 3600), null, 'no reading within 1.5 s');
    assert.equal(h.usedAt(after.pid + 1, 2000), null);
  });

  describe('choosing a source', () => {
    const smiFrom = (answers: Record<string, string | Error>): SmiRunner & { calls: string[][] } => {
      const calls: string[][] = [];
      const run = async (args: string[]) => {
        calls.push(args);
        // The longest key the query starts with (the full query before its prefix).
        const key = Object.keys(answers)
          .filter((k) => args[0]!.startsWith(k))
          .sort((a, b) => b.length - a.length)[0];
        const a = key === undefined ? new Error('nvidia-smi: command not found') : answers[key]!;
        return a instanceof Error ? { ok: false as const, reason: a.message } : { ok: true as const, stdout: a };
      };
      return Object.assign(run, { calls });
    };
    const fixtures = {
      '--query-gpu=count': '1\n',
      '--query-gpu=index': read('gpu-holding.csv'),
      '--query-compute-apps': read('apps-holding.csv'),
    };
    const truth = JSON.parse(read('holding.truth.json')) as Truth;

    it('takes the addon when NVML answers, and says nothing fell back', async () => {
      const t = truth.devices[0]!;
      const addon: NvmlAddon = {
        available: () => ({ available: true }),
        devices: () => ({
          ok: true,
          value: [
            {
              index: 0,
              name: 'H100',
              uuid: 'GPU-u',
              total: t.v2.total,
              used: t.v2.used,
              free: t.v2.free,
              reserved: t.v2.reserved,
              gpuUtil: 0,
              memUtil: 0,
            },
          ],
        }),
        processes: () => ({ ok: false, code: 4, message: 'Insufficient Permissions' }),
        driverVersion: () => ({ ok: true, value: truth.driver }),
      };
      const smi = smiFrom(fixtures);
      const p = await chooseProbe(() => addon, smi);
      assert.equal(p.source, 'nvml');
      assert.deepEqual(p.fallbackReasons, []);
      const r = await p.read();
      assert.ok(r.ok);
      assert.deepEqual(r.snapshot.devices[0]!.processes, [], 'a denied process list leaves the device figures');
      assert.equal(smi.calls.length, 0, 'nvidia-smi is not run');
    });

    it('falls back to nvidia-smi with the reason, and asks again without memory.reserved on an old driver', async () => {
      const smi = smiFrom({
        ...fixtures,
        '--query-gpu=index,name,uuid,memory.total,memory.used,memory.free,memory.reserved': new Error(
          read('bad-field.txt').replace('memory.bogus', 'memory.reserved'),
        ),
        '--query-gpu=index,name,uuid,memory.total,memory.used,memory.free,utilization': read('gpu-old-fields.csv'),
      });
      const p = await chooseProbe(() => new Error('headroom_nvml.node: cannot open shared object file'), smi);
      assert.equal(p.source, 'nvidia-smi');
      assert.match(p.fallbackReasons[0]!, /native addon did not load \(headroom_nvml\.node: cannot open/);
      const r = await p.read();
      assert.ok(r.ok, JSON.stringify(r));
      assert.equal(r.snapshot.devices[0]!.reserved, null);
      assert.ok(
        smi.calls.some((a) => a[0]!.includes('memory.reserved')) &&
          smi.calls.some((a) => a[0]!.startsWith('--query-gpu=index') && !a[0]!.includes('memory.reserved')),
      );
    });

    it('ends with "no GPU information" and every reason when neither works', async () => {
      const addon: NvmlAddon = {
        available: () => ({ available: false, reason: 'libnvidia-ml.so.1: cannot open shared object file' }),
        devices: () => ({ ok: false, code: -1, message: '' }),
        processes: () => ({ ok: false, code: -1, message: '' }),
        driverVersion: () => ({ ok: false, code: -1, message: '' }),
      };
      const p = await chooseProbe(() => addon, smiFrom({}));
      assert.equal(p.source, 'none');
      const r = await p.read();
      assert.ok(!r.ok);
      assert.match(
        r.reason,
        /no GPU information: NVML is not available \(libnvidia-ml\.so\.1: cannot open shared object file\); nvidia-smi did not run \(nvidia-smi: command not found\)/,
      );
    });
  });
});
