// Packages the VSIX from a staging folder: production bundles plus the manifest, README, license
// and .vscodeignore, so packaging never touches the working tree's dist/.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * @param {{ out: string, extra?: string[], production?: boolean }} opts
 * @returns {string} the staging folder (its dist/ holds the bundles that went into the VSIX)
 */
export function packageVsix({ out, extra = [], production = true }) {
  const stage = mkdtempSync(join(tmpdir(), 'headroom-stage-'));
  execFileSync(process.execPath, [join(ROOT, 'esbuild.mjs'), ...(production ? ['--production'] : []), '--outdir', join(stage, 'dist')], {
    cwd: ROOT,
    stdio: 'pipe',
  });
  for (const f of ['package.json', 'package.nls.json', 'README.md', 'LICENSE', '.vscodeignore'])
    copyFileSync(join(ROOT, f), join(stage, f));
  // The Python agent ships as source: the extension puts this folder on the workload's PYTHONPATH.
  cpSync(join(ROOT, 'extension', 'agent'), join(stage, 'extension', 'agent'), {
    recursive: true,
    filter: (p) => !p.includes('__pycache__'),
  });
  // The lint rules' pages, which diagnostics link to.
  cpSync(join(ROOT, 'docs', 'rules'), join(stage, 'docs', 'rules'), { recursive: true });
  // The Getting Started walkthrough's step pages.
  cpSync(join(ROOT, 'docs', 'walkthrough'), join(stage, 'docs', 'walkthrough'), { recursive: true });
  // A platform VSIX (--target linux-x64) carries the NVML addon built here for that platform; the
  // universal one has none and reads nvidia-smi instead.
  const target = extra.includes('--target') ? extra[extra.indexOf('--target') + 1] : undefined;
  if (target) {
    const here = `${process.platform}-${process.arch}`;
    if (target !== here)
      throw new Error(`the addon is built for this machine (${here}); package --target ${target} on a ${target} machine`);
    const built = join(ROOT, 'native', 'build', 'Release', 'headroom_nvml.node');
    if (!existsSync(built))
      execFileSync(
        process.execPath,
        [join(ROOT, 'node_modules', 'cmake-js', 'bin', 'cmake-js'), 'compile', '--directory', 'native', '--out', 'native/build'],
        { cwd: ROOT, stdio: 'pipe' },
      );
    mkdirSync(join(stage, 'dist', 'native', target), { recursive: true });
    copyFileSync(built, join(stage, 'dist', 'native', target, 'headroom_nvml.node'));
  }
  mkdirSync(dirname(resolve(out)), { recursive: true });
  // Everything the extension runs is bundled, so vsce must not walk node_modules. With no
  // repository URL to resolve against, README links stay as written (docs/demo.png is not shipped).
  execFileSync(
    process.execPath,
    [
      join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'),
      'package',
      '--no-dependencies',
      '--allow-missing-repository',
      '--no-rewrite-relative-links',
      '--out',
      resolve(out),
      ...extra,
    ],
    { cwd: stage, stdio: 'pipe' },
  );
  return stage;
}
