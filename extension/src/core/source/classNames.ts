import { closeSync, readSync } from 'node:fs';
import { openRegularSync } from '../safeFile';
import { enclosing } from './enclosing';
import type { Enclosing } from './enclosing';

/** Where a snapshot's frame file may be read here: the path itself, or its mapping onto this machine. */
export type LocateFile = (file: string) => readonly string[];

/** Caps on reading sources named by a stranger's snapshot: a few large modeling files, never a huge or special file. */
export const CLASS_NAME_LIMITS = { maxFileBytes: 4 << 20, maxFiles: 2000 } as const;

/**
 * Names frames by the class that encloses them (`GPT2Attention.forward`), read from the source the
 * frame names: each file is read and indexed once. A file that cannot be read, is too large, or no
 * longer has a `def` of the frame's function at that line (edited since) gives no class name.
 */
export class ClassNames {
  private readonly files = new Map<string, Enclosing | null>();

  constructor(private readonly locate: LocateFile = (f) => [f]) {}

  /** `Class.method` (or `outer.inner`) for a frame, or undefined when the source does not say. */
  qualname(file: string, line: number, name: string): string | undefined {
    const e = this.index(file);
    const q = e?.at(line);
    if (!q) return undefined;
    // The source must still agree with the frame: its innermost def is the frame's function.
    const last = q.slice(q.lastIndexOf('.') + 1);
    return last === name ? q : undefined;
  }

  private index(file: string): Enclosing | null {
    let e = this.files.get(file);
    if (e !== undefined) return e;
    e = null;
    if (file.endsWith('.py') && this.files.size < CLASS_NAME_LIMITS.maxFiles) {
      for (const path of this.locate(file)) {
        const text = readSmall(path);
        if (text !== undefined) {
          e = enclosing(text);
          break;
        }
      }
    }
    this.files.set(file, e);
    return e;
  }
}

/** A regular file's text when it is at most the cap; undefined for anything else (missing, a FIFO, a device, too large). */
function readSmall(path: string): string | undefined {
  let fd: number;
  let size: number;
  try {
    ({ fd, size } = openRegularSync(path));
  } catch {
    return undefined;
  }
  try {
    if (size > CLASS_NAME_LIMITS.maxFileBytes) return undefined;
    const buf = Buffer.allocUnsafe(size);
    let n = 0;
    for (let r = 1; n < size && r > 0; n += r) r = readSync(fd, buf, n, size - n, n);
    return buf.toString('utf8', 0, n);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
