import { dirname, relative, resolve, sep } from 'node:path';
import type { LintConfig } from './config';

/** Whether an exclude pattern matches the file, or a folder it is in, relative to the config's folder. */
export function isExcluded(config: LintConfig, file: string): boolean {
  const rel = relative(dirname(config.file), resolve(file)).split(sep).join('/');
  const paths = rel.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'));
  return config.exclude.some((g) => {
    const toks = globTokens(g);
    return paths.some((p) => globMatch(toks, p));
  });
}

// Glob tokens: a character code, or one of these. The same dialect as glob.ts (the settings' excludes),
// matched without a RegExp: a stranger's `*a*a*a*b` would make a backtracking one run for ever.
const ONE = -1; // ?
const STAR = -2; // * within a name
const ANY = -3; // ** not followed by /
const DIRS = -4; // **/ : no folders or any

function globTokens(glob: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < glob.length; i++) {
    if (glob.startsWith('**', i)) {
      const dirs = glob[i + 2] === '/';
      out.push(dirs ? DIRS : ANY);
      i += dirs ? 2 : 1;
    } else out.push(glob[i] === '*' ? STAR : glob[i] === '?' ? ONE : glob.charCodeAt(i));
  }
  return out;
}

/** A set-of-states walk: states 0..n are token positions (n matched), n+1+p is inside token p's `**\/`. */
function globMatch(toks: readonly number[], path: string): boolean {
  const n = toks.length;
  const close = (s: Uint8Array) => {
    for (let p = 0; p < n; p++) if (s[p] && (toks[p] === STAR || toks[p] === ANY || toks[p] === DIRS)) s[p + 1] = 1;
    return s;
  };
  let cur = close(new Uint8Array(2 * n + 2).fill(1, 0, 1));
  for (let i = 0; i < path.length; i++) {
    const ch = path.charCodeAt(i);
    const slash = ch === 47;
    const next = new Uint8Array(2 * n + 2);
    for (let p = 0; p < n; p++) {
      const t = toks[p]!;
      if (cur[n + 1 + p]) {
        next[n + 1 + p] = 1;
        if (slash) next[p + 1] = 1;
      }
      if (!cur[p]) continue;
      if (t === ch || (t === ONE && !slash)) next[p + 1] = 1;
      else if ((t === STAR && !slash) || t === ANY) next[p] = 1;
      else if (t === DIRS) {
        next[n + 1 + p] = 1;
        if (slash) next[p + 1] = 1;
      }
    }
    cur = close(next);
  }
  return cur[n] === 1;
}
