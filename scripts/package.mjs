// npm run package [-- --target linux-x64]: writes out/torch-headroom[-TARGET].vsix.
// Extra arguments go to `vsce package`.
import { packageVsix } from './vsix.mjs';
import { ensureDeps } from './ensure-deps.mjs';

ensureDeps();
const extra = process.argv.slice(2);
const target = extra.includes('--target') ? extra[extra.indexOf('--target') + 1] : undefined;
const out = `out/torch-headroom${target ? '-' + target : ''}.vsix`;
packageVsix({ out, extra });
console.log(`packaged ${out}`);
