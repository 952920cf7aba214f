// A fresh `git clone` of the repository in an empty temporary folder, with this checkout's
// node_modules linked inside it: what a new user gets, without a second `npm ci`. The stand-alone
// and README tests run in it. The clone holds what is committed; `worktree: true` lays this
// checkout's uncommitted changes and untracked files over it (a check before committing).
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const git = (cwd, args, input) => execFileSync('git', args, { cwd, input, stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 1 << 28 });

function overlayWorktree(clone) {
  const diff = git(ROOT, ['diff', 'HEAD', '--binary']);
  if (diff.length) git(clone, ['apply', '--whitespace=nowarn', '-'], diff);
  for (const f of git(ROOT, ['ls-files', '--others', '--exclude-standard', '-z']).toString().split('\0').filter(Boolean)) {
    mkdirSync(dirname(join(clone, f)), { recursive: true });
    cpSync(join(ROOT, f), join(clone, f));
  }
}

/**
 * @param {{ worktree?: boolean }} [opts] default: HEADROOM_CLONE_WORKTREE=1 in the environment
 * @returns {{ outer: string, clone: string, remove: () => void }}
 */
export function freshClone(opts = {}) {
  const worktree = opts.worktree ?? process.env.HEADROOM_CLONE_WORKTREE === '1';
  const outer = mkdtempSync(join(tmpdir(), 'headroom-clone-'));
  const clone = join(outer, 'headroom');
  const remove = () => {
    const link = join(clone, 'node_modules');
    // The link only, never ROOT's packages (a real folder there is the clone's own).
    if (existsSync(link) && lstatSync(link).isSymbolicLink()) rmSync(link, { force: true });
    rmSync(outer, { recursive: true, force: true });
  };
  try {
    git(outer, ['clone', '--quiet', ROOT, clone]);
    if (worktree) overlayWorktree(clone);
    const lock = (dir) => readFileSync(join(dir, 'package-lock.json'), 'utf8');
    if (lock(clone) !== lock(ROOT))
      throw new Error('package-lock.json differs from the committed one: the installed node_modules cannot stand in for the clone’s');
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
    // Dated back to the install, so that ensureDeps never runs `npm ci` through the link.
    const installed = statSync(join(ROOT, 'node_modules', '.package-lock.json')).mtime;
    utimesSync(join(clone, 'package-lock.json'), installed, installed);
    if (readdirSync(outer).join() !== 'headroom') throw new Error(`something beside the clone in ${outer}`);
    return { outer, clone, remove };
  } catch (e) {
    remove();
    throw e;
  }
}

/** The environment for a run in the clone: no HEADROOM_* setting and no outer test runner's state. */
export function cloneEnv(extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('HEADROOM_') && !k.startsWith('NODE_TEST')));
  return { ...env, ...extra };
}
