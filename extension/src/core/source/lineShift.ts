import { createHash } from 'node:crypto';

/**
 * Keeps line numbers attached to their text while a file is edited after a run. An edit replaces
 * the text from (startLine, startChar) to (endLine, endChar) with text holding `insertedLineBreaks`
 * line breaks (VS Code's content change events, 0-based).
 */
export interface LineEdit {
  startLine: number;
  startChar: number;
  endLine: number;
  endChar: number;
  insertedLineBreaks: number;
}

/** Where a 0-based line ends up after an edit, or undefined when the edit replaced it. */
export function shiftLine(line: number, e: LineEdit): number | undefined {
  const { startLine: sl, endLine: el } = e;
  if (line < sl) return line;
  if (line > el) return line + e.insertedLineBreaks - (el - sl);
  if (sl === el) return line; // an edit within one line keeps it
  if (line === sl && e.startChar > 0) return line; // the line's head stays where it was
  if (line === el && e.endChar === 0) return sl + e.insertedLineBreaks; // untouched, moved up or down
  return undefined;
}

/**
 * The hash the agent records for each source file at run time (sha256 of the UTF-8 text, 16 hex
 * digits): annotations are stale once the editor's text no longer has it.
 */
export function contentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16);
}
