import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './args';
import type { Io } from './io';
import { shippedFile } from './shipped';
import { VERSION } from './version';

export const WHEEL_USAGE = `usage: headroom wheel

  Prints the path of the torch-headroom wheel this CLI ships: the Python package that records
  without Node (python -m torch_headroom train.py), around part of a script (torch_headroom.record())
  or as a Lightning or Hugging Face Trainer callback. Same version as the CLI.
  Example: pip install "$(headroom wheel)"`;

export async function wheelCommand(argv: readonly string[], io: Io): Promise<number> {
  if (argv.length) throw new UsageError(WHEEL_USAGE);
  const dist = shippedFile('dist', 'dist');
  const wheels = dist ? readdirSync(dist).filter((f) => /^torch_headroom-.+-py3-none-any\.whl$/.test(f)) : [];
  // The CLI's own version; from source ('dev') the one the build made.
  const name =
    VERSION === 'dev' && wheels.length === 1 ? wheels[0] : wheels.find((f) => f === `torch_headroom-${VERSION}-py3-none-any.whl`);
  if (!dist || !name)
    throw new UsageError(
      `no torch-headroom ${VERSION} wheel beside this CLI${wheels.length ? ` (there: ${wheels.join(', ')})` : ''}: in a clone, npm run build makes it`,
    );
  io.out(`${join(dist, name)}\n`);
  return 0;
}
