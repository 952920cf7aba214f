// Prepares .carry/ for the GPU host (no Node.js there): this machine's node binary, the CLI and
// the GPU tests and benchmark as single bundles. On the host (HEADROOM_CLI absolute: tests run from other folders):
//   xz -dc .carry/node.xz > /tmp/node && chmod +x /tmp/node
//   HEADROOM_CLI=$PWD/.carry/cli.js HEADROOM_AGENT_DIR=$PWD/extension/agent HEADROOM_ROOT=$PWD /tmp/node --test .carry/gpu.test.js
//   HEADROOM_ROOT=$PWD HEADROOM_ADDON=$PWD/.carry/headroom_nvml.node /tmp/node --test .carry/nvml.gpu.test.js
//   HEADROOM_CLI=$PWD/.carry/cli.js HEADROOM_AGENT_DIR=$PWD/extension/agent HEADROOM_ROOT=$PWD HEADROOM_ADDON=$PWD/.carry/headroom_nvml.node /tmp/node --test .carry/doctor.gpu.test.js
//   HEADROOM_CLI=$PWD/.carry/cli.js HEADROOM_AGENT_DIR=$PWD/extension/agent HEADROOM_ROOT=$PWD /tmp/node --test .carry/agent.gpu.test.js
//   HEADROOM_CLI=$PWD/.carry/cli.js HEADROOM_AGENT_DIR=$PWD/extension/agent HEADROOM_ROOT=$PWD /tmp/node --test .carry/ranks.gpu.test.js (nvidia-h200-x2: NCCL)
//   HEADROOM_CLI=$PWD/.carry/cli.js HEADROOM_AGENT_DIR=$PWD/extension/agent HEADROOM_ROOT=$PWD /tmp/node --test .carry/params.gpu.test.js
//   HEADROOM_CLI=$PWD/.carry/cli.js HEADROOM_AGENT_DIR=$PWD/extension/agent HEADROOM_ROOT=$PWD /tmp/node --test .carry/oomMessages.gpu.test.js
//   HEADROOM_ROOT=$PWD OUT=$OUT /tmp/node --test .carry/whatif.gpu.test.js (and whatifHeldout.gpu.test.js)
//   HEADROOM_ROOT=$PWD OUT=$OUT /tmp/node --test .carry/scale.gpu.test.js (HEADROOM_SCALE_DIR keeps the runs)
//   HEADROOM_WHEEL=$(ls $PWD/.carry/wheel/*.whl) HEADROOM_CLI=$PWD/.carry/cli.js HEADROOM_ROOT=$PWD /tmp/node --test .carry/pythonPackage.gpu.test.js
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { buildSync } from 'esbuild';
import { buildWheel } from './wheel.mjs';

mkdirSync('.carry', { recursive: true });
const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node18', logLevel: 'warning' };
buildSync({ ...common, entryPoints: ['extension/src/cli/main.ts'], outfile: '.carry/cli.js' });
buildSync({ ...common, entryPoints: ['test/gpu/gpu.test.ts'], outfile: '.carry/gpu.test.js' });
buildSync({ ...common, entryPoints: ['test/gpu/overhead.bench.ts'], outfile: '.carry/overhead.bench.js' });
buildSync({ ...common, entryPoints: ['test/gpu/nvml.gpu.test.ts'], outfile: '.carry/nvml.gpu.test.js' });
buildSync({ ...common, entryPoints: ['test/gpu/doctor.gpu.test.ts'], outfile: '.carry/doctor.gpu.test.js' });
buildSync({ ...common, entryPoints: ['test/gpu/agent.gpu.test.ts'], outfile: '.carry/agent.gpu.test.js' });
buildSync({ ...common, entryPoints: ['test/gpu/ranks.gpu.test.ts'], outfile: '.carry/ranks.gpu.test.js' });
buildSync({ ...common, entryPoints: ['test/gpu/params.gpu.test.ts'], outfile: '.carry/params.gpu.test.js' });
buildSync({ ...common, entryPoints: ['test/gpu/library.gpu.test.ts'], outfile: '.carry/library.gpu.test.js' });
buildSync({ ...common, entryPoints: ['test/gpu/oomMessages.gpu.test.ts'], outfile: '.carry/oomMessages.gpu.test.js' });
buildSync({ ...common, entryPoints: ['test/gpu/whatif.gpu.test.ts'], outfile: '.carry/whatif.gpu.test.js' });
buildSync({ ...common, entryPoints: ['test/gpu/whatifHeldout.gpu.test.ts'], outfile: '.carry/whatifHeldout.gpu.test.js' });
buildSync({ ...common, entryPoints: ['test/gpu/scale.gpu.test.ts'], outfile: '.carry/scale.gpu.test.js' });
buildSync({ ...common, entryPoints: ['test/gpu/pythonPackage.gpu.test.ts'], outfile: '.carry/pythonPackage.gpu.test.js' });
buildSync({ ...common, entryPoints: ['test/gpu/capture/kinds/workspacesEval.ts'], outfile: '.carry/workspacesEval.js' });
// One load + index of a real capture there (bench/load.child.ts): /tmp/node .carry/load.child.js FILE
buildSync({ ...common, entryPoints: ['bench/load.child.ts'], outfile: '.carry/load.child.js' });
// The Python package, for the entry points' test (HEADROOM_WHEEL).
buildWheel('.carry/wheel');
// The fuzzer, for the host's many cores: HEADROOM_ROOT=$PWD HEADROOM_FUZZ_WORKER=$PWD/.carry/fuzz-worker.js /tmp/node .carry/fuzz.js N
buildSync({ ...common, entryPoints: ['test/fuzz/fuzz.ts'], outfile: '.carry/fuzz.js', external: ['esbuild'] });
buildSync({ ...common, entryPoints: ['test/fuzz/worker.ts'], outfile: '.carry/fuzz-worker.js' });
// The addon as built here (npm run build:native); the GPU host's glibc is newer, so it loads there.
if (existsSync('native/build/Release/headroom_nvml.node'))
  copyFileSync('native/build/Release/headroom_nvml.node', '.carry/headroom_nvml.node');
execFileSync('bash', ['../shared/tools/pack-node.sh', '.carry'], { stdio: 'inherit' });
