// Runs the CLI bundle in this process and, at exit, writes this process's peak RSS (KiB) to the
// file HEADROOM_COST_RSS names: the child's own memory, which spawnSync does not report.
const { writeFileSync } = require('node:fs');
const out = process.env.HEADROOM_COST_RSS;
process.on('exit', () => {
  if (out) writeFileSync(out, String(process.resourceUsage().maxRSS));
});
// The bundle runs main() only as the main module (require.main === module): load it as node would.
process.argv.splice(1, 2, process.argv[2]);
require('node:module').runMain();
