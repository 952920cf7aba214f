import { closeSync, realpathSync } from 'node:fs';
import { openRegularSync } from '../safeFile';
import { CLASS_NAME_LIMITS } from './classNames';

/** An installed package's Python file: under site-packages or dist-packages, no `.`/`..` step. */
const INSTALLED = /^(?:\/|[A-Za-z]:[\\/])(?:[^\\/]+[\\/])*?(?:site|dist)-packages[\\/](?:[^\\/]+[\\/])*[^\\/]+\.py$/;

const plainSteps = (p: string): boolean => p.split(/[\\/]/).every((s) => s !== '.' && s !== '..');

/**
 * The file on this machine that a library frame names, when showing it is harmless: an installed
 * package's `.py` file (site-packages or dist-packages, also after following links), regular and no
 * larger than the sources the call tree reads for class names. Anything else a snapshot names (it
 * names any path it likes) is undefined: the surfaces then show the frame as text.
 */
export function libraryFileHere(file: string): string | undefined {
  if (!INSTALLED.test(file) || !plainSteps(file)) return undefined;
  let real: string;
  try {
    real = realpathSync.native(file);
  } catch {
    return undefined;
  }
  if (!INSTALLED.test(real) || !plainSteps(real)) return undefined;
  try {
    const { fd, size } = openRegularSync(real);
    closeSync(fd);
    return size <= CLASS_NAME_LIMITS.maxFileBytes ? file : undefined;
  } catch {
    return undefined;
  }
}
