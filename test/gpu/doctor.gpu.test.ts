// The OOM doctor end to end on a GPU: `headroom run` of a workload that runs out beside memory taken
// outside PyTorch (cuMemAlloc) and another process holding 8 GiB. The run reads NVML through the
// addon when the agent reports the OOM; the doctor must say non-PyTorch and name that process with
// the bytes pynvml gives inside the workload. GPU host only (see README); CI skips it.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { diagnoseSnapshot } from '../../extension/src/core/diagnose/oom';
import { deviceFactsBeside } from '../../extension/src/core/run/deviceFacts';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';

const ROOT = process.env.HEADROOM_ROOT ?? resolve(__dirname, '..', '..');
const CLI = process.env.HEADROOM_CLI ?? join(ROOT, 'dist', 'cli.js');
const ADDON = process.env.HEADROOM_ADDON ?? join(ROOT, 'native', 'build', 'Release', 'headroom_nvml.node');
const CAPTURE = join(ROOT, 'test', 'gpu', 'capture');

function gpu(): boolean {
  try {
    execFileSync('python3', ['-c', 'import torch, pynvml, sys; sys.exit(0 if torch.cuda.is_available() else 1)'], { stdio: 'ignore' });
    return existsSync(ADDON);
  } catch {
    return false;
  }
}
const SKIP = gpu() ? false : 'needs a CUDA GPU, PyTorch, pynvml and the built addon: runs on the GPU host (CI skips it)';

describe('the OOM doctor on a GPU', { skip: SKIP }, () => {
  it('memory outside PyTorch and another process: non-PyTorch, that process named as pynvml saw it', async () => {
    // Another process holds 8 GiB until we end it; it says its pid once the memory is taken.
    const holder = spawn(
      'python3',
      [
        '-c',
        'import os, sys, time, torch; x = torch.empty(8 << 30, dtype=torch.uint8, device="cuda"); torch.cuda.synchronize(); print(os.getpid(), flush=True); time.sleep(600)',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const pid = Number(await new Promise<string>((res) => createInterface({ input: holder.stdout! }).once('line', res)));
      const out = mkdtempSync(join(tmpdir(), 'headroom-gpu-'));
      const truthPath = join(out, 'truth.json');
      const r = spawnSync(process.execPath, [CLI, 'run', '--out', join(out, 'runs'), '--', 'python3', 'non_pytorch_oom.py', truthPath], {
        encoding: 'utf8',
        cwd: CAPTURE,
        env: { ...process.env, HEADROOM_NVML_ADDON: ADDON },
      });
      assert.equal(r.status, 0, r.stderr);
      const t = JSON.parse(readFileSync(truthPath, 'utf8')) as {
        pid: number;
        total: number;
        free: number;
        reserved: number;
        processes: { pid: number; used: number }[];
      };
      const dir = join(out, 'runs', readdirSync(join(out, 'runs'))[0]!);
      const path = join(dir, readdirSync(dir).find((f) => /^snapshot-oom-\d+\.pickle$/.test(f))!);
      const s = await loadSnapshotFile(path);
      const a = analyzeDevice(s, 0);
      const d = diagnoseSnapshot(s, a, a.ooms[0]!, deviceFactsBeside(path, 0));
      assert.equal(d.kind, 'non-pytorch', d.why);
      assert.ok(
        Math.abs(d.outsideBytes! - (t.total - t.free - t.reserved)) <= 4 * 2 ** 20,
        `${d.outsideBytes} vs ${t.total - t.free - t.reserved}`,
      );
      assert.deepEqual(
        d.others?.find((p) => p.pid === pid),
        t.processes.find((p) => p.pid === pid),
      );
      assert.ok(!d.others?.some((p) => p.pid === t.pid), 'the workload itself is no "other process"');
    } finally {
      holder.kill();
    }
  });
});
