/**
 * A file not linted, as one typed error for every caller (CLI, editor, workspace scan, tools):
 * nesting beyond the stack (hostile input: CPython refuses more than 200 nested brackets, while the
 * rules' expression walks recurse), a file over the editor's size limit, or a rule's own failure.
 */
export class NotLintedError extends Error {
  constructor(
    /** Why, as a reader should see it: `nested too deeply`, or the rule's own error. */
    readonly reason: string,
    options?: { cause: unknown },
  ) {
    super(`not linted (${reason})`, options);
    this.name = 'NotLintedError';
  }

  static from(e: unknown): NotLintedError {
    if (e instanceof NotLintedError) return e;
    const overflow = e instanceof RangeError && /call stack/i.test(e.message);
    return new NotLintedError(overflow ? 'nested too deeply' : e instanceof Error ? e.message : String(e), { cause: e });
  }
}

/**
 * The editor lints as you type up to this many characters (1 MiB of ASCII, 4× the largest file in
 * twelve real repositories): on the extension host's thread, a 2 MB file took 1.3 s to open and
 * 0.1 s per keystroke. `headroom lint` has no limit.
 */
export const LIVE_LIMIT = 1 << 20;

/** Throws NotLintedError for a text over the editor's limit. */
export function checkLiveSize(text: string): void {
  if (text.length > LIVE_LIMIT)
    throw new NotLintedError(
      `${text.length.toLocaleString('en')} characters: the editor lints up to ${LIVE_LIMIT.toLocaleString('en')}, headroom lint up to 64 MiB`,
    );
}
