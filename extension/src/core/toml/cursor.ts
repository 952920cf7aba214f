import { TomlError } from './types';
import type { Path } from './types';

// Control characters TOML forbids in strings and comments (tab is allowed).
export const CONTROL = /[\0-\x08\x0a-\x1f\x7f]/;

/**
 * One read of a TOML text: the position, the blank space and comments between tokens, errors with
 * line and column, and what the grammar's checks must remember across statements.
 */
export class Cursor {
  i = 0;
  readonly lines = new Map<string, number>();
  /** Tables defined (by a [header] or dotted keys: no [header] may define them again), values never extended. */
  readonly defined = new WeakSet<object>();
  readonly frozen = new WeakSet<object>();
  readonly arrayTables = new WeakSet<object>();

  constructor(readonly s: string) {}

  lineAt(at: number): number {
    let n = 1;
    for (let j = this.s.indexOf('\n'); j >= 0 && j < at; j = this.s.indexOf('\n', j + 1)) n++;
    return n;
  }

  fail(msg: string, at = this.i): never {
    const line = this.lineAt(at);
    throw new TomlError(msg, line, at - (at > 0 ? this.s.lastIndexOf('\n', at - 1) : -1));
  }

  note(path: Path, at: number): void {
    this.lines.set(JSON.stringify(path), at);
  }

  ws(): void {
    while (this.s[this.i] === ' ' || this.s[this.i] === '\t') this.i++;
  }

  /** Spaces, newlines and comments (between statements and inside arrays). */
  skipBlank(): void {
    for (;;) {
      this.ws();
      const c = this.s[this.i];
      if (c === '\n') this.i++;
      else if (c === '\r' && this.s[this.i + 1] === '\n') this.i += 2;
      else if (c === '#') this.comment();
      else return;
    }
  }

  comment(): void {
    const end = this.s.indexOf('\n', this.i);
    const text = this.s.slice(this.i, end < 0 ? undefined : end).replace(/\r$/, '');
    if (CONTROL.test(text)) this.fail('a control character in a comment');
    this.i += text.length;
  }

  endOfLine(): void {
    this.ws();
    if (this.s[this.i] === '#') this.comment();
    if (this.i >= this.s.length || this.s[this.i] === '\n' || this.s.startsWith('\r\n', this.i)) return;
    this.fail('expected the end of the line');
  }
}
