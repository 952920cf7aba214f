import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { NvmlAddon, SmiRunner } from './probe';

/**
 * The NVML addon for this platform: HEADROOM_NVML_ADDON (a binary carried to a GPU host), a
 * platform VSIX's, else a development build. An Error says why none loaded.
 */
export function loadAddon(root: string): NvmlAddon | Error {
  const candidates = [
    process.env.HEADROOM_NVML_ADDON ?? '',
    join(root, 'dist', 'native', `${process.platform}-${process.arch}`, 'headroom_nvml.node'),
    join(root, 'native', 'build', 'Release', 'headroom_nvml.node'),
  ];
  const path = candidates.find((p) => p && existsSync(p));
  if (!path) return new Error(`no addon for ${process.platform}-${process.arch} in this package (the universal VSIX has none)`);
  try {
    // A plain require at run time: esbuild leaves it alone, and a broken binary is caught here.
    const addon = (module.require as (p: string) => NvmlAddon)(path);
    addon.available(); // smoke test: a binary that loads but cannot run fails here, not later
    return addon;
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

export const runSmi: SmiRunner = (args) =>
  new Promise((resolve) => {
    execFile('nvidia-smi', args, { timeout: 5000, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) resolve({ ok: false, reason: `${(stderr || stdout || err.message).trim()}` });
      else resolve({ ok: true, stdout });
    });
  });
