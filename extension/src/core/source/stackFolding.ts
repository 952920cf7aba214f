import type { StackFrame } from './lineFacts';

// Which frames of a block's stack a hover lists and which it only counts: a long stack would cover
// the code it explains. The front end words the result (links, "via 7 library frames", "+3 more").

/** User frames listed before the rest are counted (a stack of USER_SHOWN + 1 is listed whole). */
export const USER_SHOWN = 3;
/** Library frames listed, when library frames are shown, before the rest are counted. */
export const LIBRARY_SHOWN = 24;

export interface FoldOptions {
  /** The stack lists Python library frames (stackOf's `library`): only C++ frames are collapsed. */
  library: boolean;
  /** A breakdown of the model code beneath the line is shown beside the stack. */
  breakdown: boolean;
}

export interface ShownFrame extends StackFrame {
  /** The file as listed: a user file by its name, a library file by its place in the library. */
  place: string;
  /** Frames collapsed just inside this one (between it and the frame listed before), 0 if none. */
  via: number;
}

export interface FoldedStack {
  /** Innermost first. */
  frames: ShownFrame[];
  /** Frames collapsed outside the last listed frame, attached to none. */
  trailing: number;
  /** Frames past the limits: counted, not listed. */
  more: number;
  /** One user frame, on one line: the breakdown already says what is beneath the line. */
  compact: boolean;
  /** Whether the hover offers to show or hide library frames: some were collapsed, or they are shown. */
  toggle: boolean;
}

/** A library file by its place in the library (`transformers/models/gpt2/modeling_gpt2.py`), not its whole path. */
export function libraryPlace(file: string): string {
  const m = /(?:site-packages|dist-packages)\/(.+)$/.exec(file);
  return m ? m[1]! : file.split('/').slice(-3).join('/');
}

/**
 * Folds a stack from stackOf (innermost first, runs of hidden frames as counts): a collapsed run
 * goes onto the next listed frame as its `via`; past USER_SHOWN user frames (one when compact), or
 * LIBRARY_SHOWN library frames, the rest is counted in `more`.
 */
export function foldStack(stack: readonly (StackFrame | { collapsed: number })[], o: FoldOptions): FoldedStack {
  const compact = o.breakdown && !o.library;
  const max = compact ? 1 : USER_SHOWN;
  const users = stack.filter((f) => 'file' in f && f.user).length;
  const frames: ShownFrame[] = [];
  let shown = 0;
  let libs = 0;
  let more = 0;
  let via = 0;
  let collapsed = false;
  for (const f of stack) {
    if ((users > max + 1 && shown >= max) || ('file' in f && !f.user && libs >= LIBRARY_SHOWN)) {
      more += 'file' in f ? 1 : f.collapsed;
      continue;
    }
    if (!('file' in f)) {
      via = f.collapsed;
      collapsed = true;
      continue;
    }
    if (f.user) shown++;
    else libs++;
    frames.push({ ...f, place: f.user ? f.file.slice(f.file.lastIndexOf('/') + 1) : libraryPlace(f.file), via });
    via = 0;
  }
  return { frames, trailing: via, more, compact, toggle: o.library || collapsed };
}
