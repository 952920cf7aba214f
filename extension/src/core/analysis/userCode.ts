import type { FrameTable } from '../snapshot/frames';

/**
 * Which frames are the user's code. A user frame is a Python file (`.py`, line > 0) outside
 * site-packages, dist-packages and the standard library; `include` globs win over `exclude` globs.
 */
export interface UserCodeRule {
  include: readonly string[];
  exclude: readonly string[];
}

export const DEFAULT_EXCLUDE: readonly string[] = [
  '**/site-packages/**',
  '**/dist-packages/**',
  '**/lib/python[0-9]*/**',
  '**/lib64/python[0-9]*/**',
  '**/Lib/**', // Windows stdlib
  // Code torch.compile generates (Inductor's cache, its debug dumps): never the user's lines.
  '**/torchinductor_*/**',
  '**/torch_compile_debug/**',
];

// torch's own package (site-packages/torch/…, or a source checkout's torch/nn/…; not any folder named
// torch, such as a venv at /opt/torch), code torch.compile generated, and non-files (<frozen …>).
// (Headroom's own frames never reach a stack: FrameTable.isOwn drops them when stacks are read.)
const TORCH_OR_GENERATED =
  /(?:site|dist)-packages\/torch\/|(?:^|\/)torch\/(?:nn|autograd|utils|optim|amp|cuda|fx|distributed|_\w+|(?:functional|overrides|serialization|random|hub|library|storage|types|return_types)\.py$)|\/torchinductor_|\/torch_compile_debug\/|^</;

/** A frame file that is torch's or generated: never the model's own code, in a library or not. */
export function isTorchOrGenerated(file: string): boolean {
  return TORCH_OR_GENERATED.test(file);
}

/** A glob matching exactly this path (its *, ? and [ taken literally). */
export function exactGlob(path: string): string {
  return path.replace(/[*?[]/g, (c) => `[${c}]`);
}

export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const slash = glob[i + 2] === '/';
        re += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = glob.indexOf(']', i);
      if (close < 0) re += '\\[';
      else {
        re += '[' + glob.slice(i + 1, close).replace(/\\/g, '\\\\') + ']';
        i = close;
      }
    } else re += /[.+^${}()|\\]/.test(c) ? '\\' + c : c;
  }
  return new RegExp('^' + re + '$');
}

export const enum FrameKind {
  Cpp = 0,
  Library = 1,
  User = 2,
}

/** Classifies frames once per frame id. */
export class FrameClassifier {
  private readonly include: RegExp[];
  private readonly exclude: RegExp[];
  private kinds: Int8Array;

  constructor(
    private readonly frames: FrameTable,
    rule: UserCodeRule = { include: [], exclude: [] },
  ) {
    this.include = rule.include.map(globToRegExp);
    this.exclude = [...DEFAULT_EXCLUDE, ...rule.exclude].map(globToRegExp);
    this.kinds = new Int8Array(frames.size).fill(-1);
  }

  kind(frame: number): FrameKind {
    if (frame >= this.kinds.length) {
      // Frames interned after this classifier was made (backward() call sites from a run folder).
      const grown = new Int8Array(Math.max(frame + 1, this.kinds.length * 2)).fill(-1);
      grown.set(this.kinds);
      this.kinds = grown;
    }
    let k = this.kinds[frame]!;
    if (k < 0) {
      k = this.classify(frame);
      this.kinds[frame] = k;
    }
    return k as FrameKind;
  }

  /** The innermost user frame of a stack (innermost first), or -1. */
  firstUser(frames: Iterable<number>): number {
    for (const f of frames) if (this.kind(f) === FrameKind.User) return f;
    return -1;
  }

  private classify(frame: number): FrameKind {
    const file = this.frames.fileOf(frame);
    if (!file.endsWith('.py') || this.frames.lineOf(frame) <= 0) return FrameKind.Cpp;
    const path = file.replace(/\\/g, '/');
    if (this.include.some((r) => r.test(path))) return FrameKind.User;
    return this.exclude.some((r) => r.test(path)) ? FrameKind.Library : FrameKind.User;
  }
}
