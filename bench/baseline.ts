// The previous reader, for benchmarks that compare with it in the same run: the engine as it was
// at a git ref (HEADROOM_BENCH_BASE, default the commit before issue 40's work) under this
// checkout's bench child, bundled apart. Undefined, with the reason, when the ref is not in this
// clone (a shallow one).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';

export const BASE_REF = process.env.HEADROOM_BENCH_BASE ?? '0bd93e2';

export function bundleChild(root: string, child: string, outfile: string, base?: string): string | undefined {
  let entry = join(root, 'bench', child);
  if (base) {
    const tree = mkdtempSync(join(tmpdir(), 'headroom-base-'));
    try {
      const tar = execFileSync('git', ['-C', root, 'archive', base, 'extension'], {
        maxBuffer: 1 << 30,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      execFileSync('tar', ['-x', '-C', tree], { input: tar });
    } catch {
      return undefined;
    }
    mkdirSync(join(tree, 'bench'));
    copyFileSync(entry, join(tree, 'bench', child));
    // The previous reader has no progressive load: its child is only ever run plain.
    writeFileSync(join(tree, 'bench', 'load.progressive.ts'), 'export function progressive(): never { throw new Error("plain only"); }\n');
    entry = join(tree, 'bench', child);
  }
  buildSync({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', minify: true, outfile, logLevel: 'warning' });
  return outfile;
}
