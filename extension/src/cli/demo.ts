import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { plain } from '../shared/text';
import { parseArgs, UsageError } from './args';
import type { Io } from './io';
import { shippedFile } from './shipped';
import DEMO_FILES from '../../../demo/files.json';

export const DEMO_USAGE = `usage: headroom demo [DIR]

  Writes the demo into DIR (default ./headroom-demo): train_leaky.py, a small training script with
  two classic leaks; leaky_demo.pickle, a real CUDA memory snapshot of it; and a README of what to
  try. Never overwrites: DIR must be new or empty.
  Example: headroom demo && headroom analyze headroom-demo/leaky_demo.pickle`;

/** Each demo file, by where the clone keeps it (the npm package has them in demo/: npm-package.mjs reads the same list). */
const FILES: Record<string, string> = DEMO_FILES;

export async function demoCommand(argv: readonly string[], io: Io): Promise<number> {
  const p = parseArgs(argv, {});
  if (p.positional.length > 1) throw new UsageError(DEMO_USAGE);
  const dir = resolve(p.positional[0] ?? 'headroom-demo');
  if (existsSync(dir) && readdirSync(dir).length) throw new UsageError(`${plain(dir)} is not empty: name a new folder (headroom demo DIR)`);
  const sources = Object.entries(FILES).map(([name, inClone]) => [name, shippedFile(join('demo', name), inClone)] as const);
  const missing = sources.filter(([, from]) => !from).map(([name]) => name);
  if (missing.length)
    throw new UsageError(`this installation has no demo files (${missing.join(', ')}): install the npm package torch-headroom`);
  mkdirSync(dir, { recursive: true });
  for (const [name, from] of sources) copyFileSync(from!, join(dir, name));
  io.out(
    `${plain(dir)}: ${Object.keys(FILES).join(', ')}\nNext: headroom analyze ${plain(join(p.positional[0] ?? 'headroom-demo', 'leaky_demo.pickle'))}\n`,
  );
  return 0;
}
