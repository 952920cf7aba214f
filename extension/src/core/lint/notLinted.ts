/**
 * A file the rules could not walk, as one typed error for every caller (CLI, editor, workspace
 * scan, tools). The cause is nearly always nesting beyond the stack: hostile input, as CPython
 * refuses more than 200 nested brackets, while the rules' expression walks recurse.
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
