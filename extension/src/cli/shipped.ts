import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A file the installed package ships beside the CLI bundle (dist/cli.js → the package's root), or
 * where the clone keeps it when the CLI runs from source or from the clone's dist/.
 */
export function shippedFile(packaged: string, inClone: string): string | undefined {
  const roots = [join(__dirname, '..'), join(__dirname, '..', '..', '..')];
  for (const root of roots) {
    for (const rel of [packaged, inClone]) {
      const p = join(root, rel);
      if (existsSync(p)) return p;
    }
  }
  return undefined;
}
