/**
 * Maps the file paths in a snapshot's frames (paths of the machine that ran the job: a cluster, a
 * container) to files of the workspace, like a debugger's source maps:
 *   1. explicit mappings ({"/remote/prefix": "/local/prefix"}), longest prefix first;
 *   2. the path itself, when it exists here;
 *   3. the workspace file sharing the longest common suffix of path components with it; a tie is
 *      ambiguous and must be resolved by the user (then remembered as a mapping).
 * Nothing is dropped: unmapped paths are reported.
 */
export type Mapping = Record<string, string>;

export type Resolution =
  | { kind: 'mapped'; local: string; how: 'mapping' | 'same' | 'suffix' }
  | { kind: 'ambiguous'; candidates: string[] }
  | { kind: 'unmapped' };

const norm = (p: string): string => p.replace(/\\/g, '/');
const parts = (p: string): string[] => norm(p).split('/').filter(Boolean);

function commonSuffix(a: string[], b: string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

export class PathMapper {
  private readonly byName = new Map<string, string[]>();
  private readonly mappings: [string, string][];

  /**
   * @param files absolute paths of the workspace's files (Python sources)
   * @param mappings remote prefix → local prefix
   */
  constructor(
    files: readonly string[],
    mappings: Mapping = {},
    private readonly exists: (p: string) => boolean = (p) => files.includes(p),
  ) {
    for (const f of files) {
      const name = parts(f).at(-1);
      if (!name) continue;
      const list = this.byName.get(name) ?? [];
      list.push(f);
      this.byName.set(name, list);
    }
    this.mappings = Object.entries(mappings)
      .map(([r, l]) => [norm(r).replace(/\/+$/, ''), norm(l).replace(/\/+$/, '')] as [string, string])
      .sort((x, y) => y[0].length - x[0].length);
  }

  resolve(remote: string): Resolution {
    const p = norm(remote);
    for (const [r, l] of this.mappings) {
      if (p === r || p.startsWith(`${r}/`)) {
        const local = l + p.slice(r.length);
        if (this.exists(local)) return { kind: 'mapped', local, how: 'mapping' };
      }
    }
    if (this.exists(p)) return { kind: 'mapped', local: p, how: 'same' };
    const want = parts(p);
    const candidates = this.byName.get(want.at(-1) ?? '') ?? [];
    let best = 0;
    let winners: string[] = [];
    for (const c of candidates) {
      const n = commonSuffix(want, parts(c));
      if (n > best) {
        best = n;
        winners = [c];
      } else if (n === best) winners.push(c);
    }
    if (!winners.length) return { kind: 'unmapped' };
    if (winners.length > 1) return { kind: 'ambiguous', candidates: winners.sort() };
    return { kind: 'mapped', local: winners[0]!, how: 'suffix' };
  }
}

/**
 * The prefix mapping implied by matching `remote` to `local` (their common suffix removed), so
 * that the user's answer for one file serves every file under the same roots.
 */
export function impliedMapping(remote: string, local: string): Mapping {
  const r = parts(remote);
  const l = parts(local);
  const n = commonSuffix(r, l);
  const lead = (p: string) => (norm(p).startsWith('/') ? '/' : '');
  return { [lead(remote) + r.slice(0, r.length - n).join('/')]: lead(local) + l.slice(0, l.length - n).join('/') };
}

/** Expands ${workspaceFolder} in mapping targets, as debug configurations do. */
export function expandMappings(m: Mapping, workspaceFolder: string | undefined): Mapping {
  const out: Mapping = {};
  for (const [k, v] of Object.entries(m)) {
    if (v.includes('${workspaceFolder}') && !workspaceFolder) continue;
    out[k] = v.replace(/\$\{workspaceFolder\}/g, workspaceFolder ?? '');
  }
  return out;
}

/**
 * Where a frame's file may be on this machine, for reading it (class names): through each prefix
 * mapping that covers it, longest first, then the path itself. No guess by file name: a library's
 * `utils.py` is not the user's.
 */
export function mappedPaths(remote: string, mappings: Mapping): string[] {
  const p = norm(remote);
  const out: string[] = [];
  const prefixes = Object.entries(mappings)
    .map(([r, l]) => [norm(r).replace(/\/+$/, ''), norm(l).replace(/\/+$/, '')] as [string, string])
    .sort((x, y) => y[0].length - x[0].length);
  for (const [r, l] of prefixes) if (p === r || p.startsWith(`${r}/`)) out.push(l + p.slice(r.length));
  out.push(remote);
  return out;
}
