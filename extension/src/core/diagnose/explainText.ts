import { parseOomMessages } from '../oomMessage';
import type { OomMessage } from '../oomMessage';
import { diagnoseMessage } from './messageDoctor';
import type { OomDiagnosis } from './oom';
import { oomContext } from './oomContext';

/** One OOM message found in a text, where it is (1-based line), and the doctor's reading of it. */
export interface ExplainedOom {
  message: OomMessage;
  line: number;
  diagnosis: OomDiagnosis;
}

/**
 * The one entry point for text (a paste, a terminal's output, a log file; the CLI, the editor and
 * the MCP tool alike): every message in order, each read with the traceback around it.
 */
export function explainOomText(text: string): ExplainedOom[] {
  const ms = parseOomMessages(text);
  let line = 1;
  let at = 0;
  return ms.map((m) => {
    for (let i = text.indexOf('\n', at); i >= 0 && i < m.offset; i = text.indexOf('\n', i + 1)) line++;
    at = Math.max(at, m.offset);
    return { message: m, line, diagnosis: diagnoseMessage(m, oomContext(text, m, ms)) };
  });
}

/** Where a message sits, for the report: "message 2 of 3, line 14 of train.log". */
export function placeOf(found: readonly ExplainedOom[], i: number, name?: string): string {
  return `${found.length > 1 ? `message ${i + 1} of ${found.length}, ` : ''}line ${found[i]!.line}${name ? ` of ${name}` : ''}`;
}
