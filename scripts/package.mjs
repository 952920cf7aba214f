// Builds the production bundles and packages the VSIX with @vscode/vsce.
// Extra arguments go to `vsce package` (e.g. `npm run package -- --target linux-x64`).
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';

const run = (cmd, args) => execFileSync(cmd, args, { stdio: 'inherit' });
const extra = process.argv.slice(2);
run(process.execPath, ['esbuild.mjs', '--production']);
mkdirSync('out', { recursive: true });
const target = extra.includes('--target') ? extra[extra.indexOf('--target') + 1] : undefined;
const out = extra.includes('--out') ? [] : ['--out', `out/headroom${target ? '-' + target : ''}.vsix`];
// Everything the extension runs is bundled, so vsce must not walk node_modules.
run(process.execPath, ['node_modules/@vscode/vsce/vsce', 'package', '--no-dependencies', '--allow-missing-repository', ...out, ...extra]);
