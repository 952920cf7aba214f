// The NVML addon against the driver's other two readers, nvidia-smi and pynvml, while a PyTorch
// process holds a known amount; and "non-PyTorch" (device used by the process − reserved) against
// the CUDA context measured before the big allocation. GPU host only (see README); with
// HEADROOM_NVML_CAPTURE=DIR it also writes nvidia-smi's answers and pynvml's figures there (the
// parser's fixtures in test/fixtures/nvidia-smi come from such a run).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { SMI_APP_FIELDS, SMI_GPU_FIELDS, parseSmiApps, parseSmiGpus, smiArgs } from '../../extension/src/core/gpu/smi';
import type { NvmlAddon } from '../../extension/src/core/gpu/probe';

const ROOT = process.env.HEADROOM_ROOT ?? resolve(__dirname, '..', '..');
const ADDON = process.env.HEADROOM_ADDON ?? join(ROOT, 'native', 'build', 'Release', 'headroom_nvml.node');
const MiB = 2 ** 20;

function gpu(): boolean {
  try {
    execFileSync('python3', ['-c', 'import torch, pynvml, sys; sys.exit(0 if torch.cuda.is_available() else 1)'], { stdio: 'ignore' });
    execFileSync('nvidia-smi', ['-L'], { stdio: 'ignore' });
    return existsSync(ADDON);
  } catch {
    return false;
  }
}
const SKIP = gpu() ? false : 'needs a CUDA GPU, PyTorch, pynvml, nvidia-smi and the built addon: runs on the GPU host (CI skips it)';

interface Pynvml {
  driver: string;
  devices: {
    index: number;
    v1: { total: number; used: number };
    v2?: { total: number; used: number; reserved: number };
    processes: { pid: number; used: number }[];
  }[];
}

describe('NVML addon on a real driver', { skip: SKIP }, () => {
  it('equals nvidia-smi and pynvml within 1 MiB while PyTorch holds 4 GiB; non-PyTorch is the CUDA context', async () => {
    const addon = require(ADDON) as NvmlAddon;
    const capture = process.env.HEADROOM_NVML_CAPTURE;
    if (capture) mkdirSync(capture, { recursive: true });
    const smi = (fields: readonly string[], q: 'gpu' | 'compute-apps') =>
      execFileSync('nvidia-smi', smiArgs(fields, q), { encoding: 'utf8' });
    const pynvml = () =>
      JSON.parse(execFileSync('python3', [join(ROOT, 'test', 'gpu', 'nvml', 'pynvml_read.py')], { encoding: 'utf8' })) as Pynvml;
    /** All three readers at one moment (as close as three processes get). */
    const readAll = (tag: string) => {
      const gpus = smi(SMI_GPU_FIELDS, 'gpu');
      const apps = smi(SMI_APP_FIELDS, 'compute-apps');
      const py = pynvml();
      const ds = addon.devices();
      const ps = addon.processes(0);
      assert.ok(ds.ok && ps.ok, 'the addon reads the devices and processes');
      if (capture) {
        writeFileSync(join(capture, `gpu-${tag}.csv`), gpus);
        writeFileSync(join(capture, `apps-${tag}.csv`), apps);
        writeFileSync(join(capture, `${tag}.truth.json`), JSON.stringify(py, null, 1));
      }
      return { smiGpus: parseSmiGpus(gpus).devices, smiApps: parseSmiApps(apps), py, devices: ds.value, processes: ps.value };
    };
    const near = (a: number | null | undefined, b: number | null | undefined, what: string) => {
      assert.ok(a !== null && a !== undefined && b !== null && b !== undefined, `${what}: both known`);
      assert.ok(Math.abs(a - b) <= MiB, `${what}: ${a} vs ${b} (${((a - b) / MiB).toFixed(2)} MiB apart)`);
    };
    const holder = spawn('python3', [join(ROOT, 'test', 'gpu', 'nvml', 'hold_memory.py'), String(4 * 2 ** 30)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: holder.stdout })[Symbol.asyncIterator]();
    const next = async () => JSON.parse((await lines.next()).value as string) as { pid: number; reserved: number; allocated: number };
    try {
      const context = await next();
      const before = readAll('context');
      holder.stdin.write('\n');
      const holding = await next();
      const after = readAll('holding');
      assert.ok(holding.reserved >= 4 * 2 ** 30, 'PyTorch reserved the 4 GiB');
      for (const r of [before, after]) {
        const d = r.devices[0]!;
        const s = r.smiGpus[0]!;
        const p = r.py.devices[0]!;
        near(d.total, s.total, 'total vs nvidia-smi');
        near(d.used, s.used, 'used vs nvidia-smi');
        near(d.reserved, s.reserved, 'driver-reserved vs nvidia-smi');
        near(d.total, p.v2?.total ?? p.v1.total, 'total vs pynvml');
        near(d.used, p.v2?.used ?? p.v1.used, 'used vs pynvml');
        const mine = r.processes.find((x) => x.pid === holder.pid);
        near(mine?.used, r.smiApps.get(d.uuid)?.find((x) => x.pid === holder.pid)?.used, 'process used vs nvidia-smi');
        near(mine?.used, p.processes.find((x) => x.pid === holder.pid)?.used, 'process used vs pynvml');
      }
      const used = (r: typeof before) => r.processes.find((x) => x.pid === holder.pid)!.used!;
      const ctx = used(before) - context.reserved;
      const nonPyTorch = used(after) - holding.reserved;
      assert.ok(ctx > 64 * MiB, `the CUDA context takes device memory (${(ctx / MiB).toFixed(0)} MiB)`);
      assert.ok(
        Math.abs(nonPyTorch - ctx) <= 4 * MiB,
        `non-PyTorch ${(nonPyTorch / MiB).toFixed(1)} MiB is the context ${(ctx / MiB).toFixed(1)} MiB`,
      );
      const report = {
        device: after.devices[0]!.name,
        driver: after.py.driver,
        context_mib: ctx / MiB,
        non_pytorch_mib: nonPyTorch / MiB,
        torch_reserved: holding.reserved,
        addon_process_used: used(after),
        addon_device_used: after.devices[0]!.used,
        smi_device_used_mib: after.smiGpus[0]!.used / MiB,
        pynvml_device_used: after.py.devices[0]!.v2?.used,
      };
      console.log(`NVML report: ${JSON.stringify(report)}`);
      if (capture) writeFileSync(join(capture, 'report.json'), JSON.stringify(report, null, 1));
    } finally {
      holder.kill();
    }
  });
});
