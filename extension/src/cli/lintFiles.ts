import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { formatBytes } from '../shared/format';
import { plain } from '../shared/text';
import { UsageError } from './args';

// What `headroom lint` reads: the Python files under its paths, each refused before it is read when
// too large, and the folders it cannot read said and passed over instead of ending in a stack trace.

/**
 * The largest Python file `lint` reads, 64× the editor's limit (LIVE_LIMIT): no real source comes
 * near it, and a 3 GB (sparse) file is refused from its size, not after it was read whole (issue 39).
 */
export const LINT_FILE_BYTES = 64 << 20;

/** `lint -`: standard input, up to the editor's own size for a file. */
export const STDIN_BYTES = 16 << 20;

const SKIP_DIRS = new Set(['.git', 'node_modules', '__pycache__', '.venv', 'venv', 'site-packages', '.headroom']);

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENAMETOOLONG: 'path too long',
  ELOOP: 'too many levels of symbolic links',
  ENOENT: 'no longer there',
  ENOTDIR: 'not a folder',
  EMFILE: 'too many open files',
  EIO: 'input/output error',
};

/** A file-system error as a reader should see it (`permission denied`), or undefined when it is not one. */
export function fsReason(e: unknown): string | undefined {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? (REASONS[code] ?? code) : undefined;
}

/**
 * The Python files at `path`: itself if it is one, else the *.py files under it (not in SKIP_DIRS).
 * A folder that cannot be read (no permission, a path past PATH_MAX) goes to `skipped` with why.
 */
export function pythonFiles(path: string, out: string[], skipped: (path: string, why: string) => void): string[] {
  const guard = <T>(f: () => T): T | undefined => {
    try {
      return f();
    } catch (e) {
      const why = fsReason(e);
      if (why === undefined) throw e;
      skipped(path, why);
      return undefined;
    }
  };
  const st = guard(() => statSync(path));
  if (st?.isFile()) {
    if (path.endsWith('.py')) out.push(path);
  } else if (st?.isDirectory()) {
    const entries = guard(() => readdirSync(path, { withFileTypes: true })) ?? [];
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory() && !SKIP_DIRS.has(e.name)) pythonFiles(join(path, e.name), out, skipped);
      else if (e.isFile() && e.name.endsWith('.py')) out.push(join(path, e.name));
    }
  }
  return out;
}

/**
 * A Python file's text, its size checked (fstat, on the file opened) before a byte is read: over
 * LINT_FILE_BYTES, a usage error. File-system errors are thrown as they are (fsReason reads them).
 */
export function readPython(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size > LINT_FILE_BYTES)
      throw new UsageError(
        `${plain(file)} is ${formatBytes(size)}: lint reads Python files up to ${formatBytes(LINT_FILE_BYTES)} (generated code or data?); exclude it in [tool.headroom.lint]`,
      );
    const b = Buffer.alloc(size);
    let got = 0;
    for (let n = 1; got < size && n > 0; got += n) n = readSync(fd, b, got, size - got, got);
    return b.subarray(0, got).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
