// npm run screenshots: makes the README's two pictures again from this checkout, in a real VS Code
// (code-server in headless chromium, as the demo and the e2e tests run it):
//   docs/demo.png      the demo (`npm start -- --screenshot`): train_leaky.py with its snapshot's memory on the code
//   docs/timeline.png  the timeline beside train.py, taken by test/e2e/timeline.e2e.test.ts
import { execFileSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';

const run = (args) => execFileSync(process.execPath, args, { stdio: 'inherit' });
run(['scripts/demo.mjs', '--screenshot', 'docs/demo.png']);
run(['--import', 'tsx', '--test', 'test/e2e/timeline.e2e.test.ts']);
copyFileSync('test/e2e/artifacts/timeline.png', 'docs/timeline.png');
console.log('docs/demo.png and docs/timeline.png made');
