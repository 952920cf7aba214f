// The Python package torch-headroom as a wheel (dist/torch_headroom-VERSION-py3-none-any.whl):
// the agent (headroom_agent), its public face (torch_headroom) and the sitecustomize shim that
// arms child processes (torch_headroom/_shim). Pure Python, standard library only, any platform.
// Run by `npm run build`; `node scripts/wheel.mjs [OUTDIR]` alone.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zip } from './zip.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const AGENT = join(ROOT, 'extension', 'agent');
export const DIST_NAME = 'torch-headroom';

/** The version, from the agent (one place for Python; package.test checks it equals package.json's). */
export function agentVersion() {
  const m = /^__version__ = "([^"]+)"$/m.exec(readFileSync(join(AGENT, 'headroom_agent', '__init__.py'), 'utf8'));
  if (!m) throw new Error('headroom_agent/__init__.py has no __version__');
  return m[1];
}

function pyFiles(pkg) {
  return readdirSync(join(AGENT, pkg))
    .filter((f) => f.endsWith('.py'))
    .sort()
    .map((f) => [`${pkg}/${f}`, readFileSync(join(AGENT, pkg, f))]);
}

const record = (name, data) => `${name},sha256=${createHash('sha256').update(data).digest('base64url')},${data.length}`;

export function buildWheel(outDir = join(ROOT, 'dist')) {
  const version = agentVersion();
  const info = `torch_headroom-${version}.dist-info`;
  const readme = readFileSync(join(AGENT, 'README.md'), 'utf8');
  const metadata = [
    'Metadata-Version: 2.1',
    `Name: ${DIST_NAME}`,
    `Version: ${version}`,
    "Summary: Records a PyTorch process's CUDA memory for the Headroom editor extension and CLI",
    'License: MIT',
    'Requires-Python: >=3.9',
    'Classifier: Programming Language :: Python :: 3',
    'Classifier: License :: OSI Approved :: MIT License',
    'Classifier: Topic :: Scientific/Engineering :: Artificial Intelligence',
    'Description-Content-Type: text/markdown',
    '',
    readme,
  ].join('\n');
  const files = [
    ...pyFiles('headroom_agent'),
    ...pyFiles('torch_headroom'),
    ['torch_headroom/_shim/sitecustomize.py', readFileSync(join(AGENT, 'sitecustomize.py'))],
    [`${info}/METADATA`, metadata],
    [`${info}/WHEEL`, 'Wheel-Version: 1.0\nGenerator: headroom scripts/wheel.mjs\nRoot-Is-Purelib: true\nTag: py3-none-any\n'],
    [`${info}/entry_points.txt`, '[console_scripts]\ntorch-headroom = torch_headroom.__main__:main\n'],
    [`${info}/top_level.txt`, 'headroom_agent\ntorch_headroom\n'],
  ].map(([n, d]) => [n, Buffer.isBuffer(d) ? d : Buffer.from(d)]);
  const recordName = `${info}/RECORD`;
  const recordText = [...files.map(([n, d]) => record(n, d)), `${recordName},,`, ''].join('\n');
  files.push([recordName, Buffer.from(recordText)]);
  mkdirSync(outDir, { recursive: true });
  const out = join(outDir, `torch_headroom-${version}-py3-none-any.whl`);
  writeFileSync(out, zip(files));
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(buildWheel(process.argv[2] ? resolve(process.argv[2]) : undefined));
}
