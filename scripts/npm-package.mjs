// The CLI as the npm package torch-headroom (out/torch-headroom-VERSION.tgz): the `headroom`
// command (the CLI bundle and the parser's WebAssembly), the Python agent that `headroom run`
// injects, the torch-headroom wheel (`headroom wheel`), the demo files (`headroom demo`) and the
// NVML addon when this machine built one. Staged apart, so the extension's manifest is not
// published, and packed with `npm pack`. Usage: node scripts/npm-package.mjs [OUTDIR]
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The files of `headroom demo`, from where the clone keeps them (the CLI's demo command reads the same list). */
export const DEMO_FILES = JSON.parse(readFileSync(join(ROOT, 'demo', 'files.json'), 'utf8'));

/** Stages and packs; returns the tarball's path. */
export function packNpm(outDir = join(ROOT, 'out')) {
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const stage = mkdtempSync(join(tmpdir(), 'headroom-npm-'));
  execFileSync(process.execPath, [join(ROOT, 'esbuild.mjs'), '--production', '--outdir', join(stage, 'dist')], {
    cwd: ROOT,
    stdio: 'pipe',
  });
  const manifest = {
    name: root.name,
    version: root.version,
    description: 'PyTorch CUDA memory: why it ran out, which lines hold it, what leaks, and what another setting or batch would do',
    license: root.license,
    keywords: root.keywords,
    bin: { headroom: 'dist/cli.js' },
    engines: { node: root.engines.node },
    files: ['dist/cli.js', 'dist/*.wasm', 'dist/*.whl', 'dist/native/', 'extension/agent/', 'demo/', 'README.md', 'LICENSE'],
  };
  writeFileSync(join(stage, 'package.json'), JSON.stringify(manifest, null, 1) + '\n');
  for (const f of ['README.md', 'LICENSE']) copyFileSync(join(ROOT, f), join(stage, f));
  cpSync(join(ROOT, 'extension', 'agent'), join(stage, 'extension', 'agent'), {
    recursive: true,
    filter: (p) => !p.includes('__pycache__'),
  });
  mkdirSync(join(stage, 'demo'));
  for (const [name, from] of Object.entries(DEMO_FILES)) copyFileSync(join(ROOT, from), join(stage, 'demo', name));
  const addon = join(ROOT, 'native', 'build', 'Release', 'headroom_nvml.node');
  if (existsSync(addon)) {
    mkdirSync(join(stage, 'dist', 'native', `${process.platform}-${process.arch}`), { recursive: true });
    copyFileSync(addon, join(stage, 'dist', 'native', `${process.platform}-${process.arch}`, 'headroom_nvml.node'));
  }
  mkdirSync(outDir, { recursive: true });
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', resolve(outDir)], { cwd: stage, encoding: 'utf8' })
    .trim()
    .split('\n')
    .at(-1);
  return join(resolve(outDir), name);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  console.log(packNpm(process.argv[2] ? resolve(process.argv[2]) : undefined));
