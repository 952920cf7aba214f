import { realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { ToolInputError } from './types';
import type { FileAccess, ToolDef } from './types';

/** The folders a server's tools may read, and where they came from (said in a refusal). */
export interface Roots {
  folders: readonly string[];
  /** `client`: the client's roots/list; `cwd`: the client declared no roots, the server's working directory is the one. */
  from: 'client' | 'cwd';
}

/** The path with every link followed; a path that is not there is checked as written (it is refused or "no such file", never probed). */
function real(path: string): string {
  const p = resolve(path);
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}

const inside = (path: string, folder: string) => path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);

/** Files under the roots only, links followed (a link inside a root to a file outside it is refused). */
export function underRoots(roots: Roots): FileAccess {
  const folders = roots.folders.map(real);
  const which =
    roots.from === 'cwd'
      ? `the server's working directory ${roots.folders[0]}, as the client declared no roots`
      : roots.folders.length
        ? `the client's roots: ${roots.folders.join(', ')}`
        : 'the client gave no roots';
  return {
    check(path) {
      const p = real(path);
      if (!folders.some((f) => inside(p, f))) throw new ToolInputError(`${path} is outside the folders Headroom may read (${which})`);
    },
  };
}

/** Checks every argument of the call that names a file or folder, before the tool runs. */
export function checkPathArgs(tool: Pick<ToolDef, 'paths'>, args: Record<string, unknown>, files: FileAccess): void {
  for (const key of tool.paths) {
    const v = Object.hasOwn(args, key) ? args[key] : undefined;
    // Other types are the tool's to refuse, with its own message.
    if (typeof v === 'string' && v !== '') files.check(v);
  }
}
