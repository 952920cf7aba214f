// Prepares .carry/ for the GPU host (no Node.js there): this machine's node binary, the CLI and
// the GPU tests and benchmark as single bundles. On the host:
//   xz -dc .carry/node.xz > /tmp/node && chmod +x /tmp/node
//   HEADROOM_CLI=.carry/cli.js HEADROOM_AGENT_DIR=$PWD/extension/agent HEADROOM_ROOT=$PWD /tmp/node --test .carry/gpu.test.js
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { buildSync } from 'esbuild';

mkdirSync('.carry', { recursive: true });
const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node18', logLevel: 'warning' };
buildSync({ ...common, entryPoints: ['extension/src/cli/main.ts'], outfile: '.carry/cli.js' });
buildSync({ ...common, entryPoints: ['test/gpu/gpu.test.ts'], outfile: '.carry/gpu.test.js' });
buildSync({ ...common, entryPoints: ['test/gpu/overhead.bench.ts'], outfile: '.carry/overhead.bench.js' });
execFileSync('bash', ['../shared/tools/pack-node.sh', '.carry'], { stdio: 'inherit' });
