import { parseOomMessages } from '../oomMessage';
import type { OomMessage } from '../oom/types';
import { diagnoseMessage } from './messageDoctor';
import type { OomDiagnosis } from './oom';
import { oomContext } from './oomContext';

/** One OOM message found in a text, where it is (1-based line), and the doctor's reading of it. */
export interface ExplainedOom {
  message: OomMessage;
  line: number;
  diagnosis: OomDiagnosis;
}

/** A log that repeats its OOM (a retry loop, every rank) is read up to this many messages. */
export const MAX_EXPLAINED = 1000;

/** The messages explained, in order, and how many more the text held past MAX_EXPLAINED. */
export interface Explained {
  found: ExplainedOom[];
  omitted: number;
}

/**
 * The one entry point for text (a paste, a terminal's output, a log file; the CLI, the editor and
 * the MCP tool alike): every message in order, each read with the traceback around it.
 */
export function explainOomText(text: string): Explained {
  const ms = parseOomMessages(text);
  const shown = ms.slice(0, MAX_EXPLAINED);
  let line = 1;
  // The next line break not yet counted (-1: none left): each is found once, so the text is read
  // once however many messages it holds, not once per message (issue 39: a 64 MB log in one line).
  let next = text.indexOf('\n');
  const found = shown.map((m, i) => {
    for (; next >= 0 && next < m.offset; next = text.indexOf('\n', next + 1)) line++;
    return { message: m, line, diagnosis: diagnoseMessage(m, oomContext(text, ms, i)) };
  });
  return { found, omitted: ms.length - shown.length };
}

/** Where a message sits, for the report: "message 2 of 3, line 14 of train.log". */
export function placeOf(found: readonly ExplainedOom[], i: number, name?: string): string {
  return `${found.length > 1 ? `message ${i + 1} of ${found.length}, ` : ''}line ${found[i]!.line}${name ? ` of ${name}` : ''}`;
}

/** Said where messages were left unread. */
export const omittedNote = (n: number) =>
  `${n} more OOM message${n === 1 ? '' : 's'} in this text not read (the first ${MAX_EXPLAINED} are)`;
