import { dirname, join } from 'node:path';
import { existsSync } from 'node:fs';
import { explainOomText, omittedNote, placeOf } from '../core/diagnose/explainText';
import type { ExplainedOom } from '../core/diagnose/explainText';
import { withRunEvidence } from '../core/diagnose/oomEvidence';
import { oomJson } from '../core/diagnose/oomJson';
import { renderDiagnosis } from '../core/diagnose/oomText';
import { LOG_BYTES, readLogTail } from '../core/logFile';
import { jsonText, plain } from '../shared/text';
import type { Io } from './io';

/** Standard input's last LOG_BYTES (an OOM ends its log; a paste is small). */
export async function readStdinTail(stdin: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const c of stdin) {
    const b = Buffer.isBuffer(c) ? c : Buffer.from(String(c));
    chunks.push(b);
    kept += b.length;
    while (chunks.length > 1 && kept - chunks[0]!.length >= LOG_BYTES) kept -= chunks.shift()!.length;
  }
  const all = Buffer.concat(chunks);
  return all.subarray(Math.max(0, all.length - LOG_BYTES)).toString('utf8');
}

/** A log written inside a Headroom run's folder is that run's output: its snapshots are evidence. */
function runOf(path: string, run: string | undefined): string | undefined {
  if (run !== undefined) return run;
  if (path === '-') return undefined;
  const dir = dirname(path);
  return existsSync(join(dir, 'meta.json')) || existsSync(join(dir, 'launch.json')) ? dir : undefined;
}

/**
 * `headroom check FILE|- --explain-oom [--json] [--run DIR]`: every OOM message in a text, in
 * order, read by the doctor; a run folder's snapshot of the same OOM overrides the message.
 */
export async function explainOomFile(path: string, opts: { json: boolean; run?: string }, io: Io): Promise<number> {
  const text = path === '-' ? await readStdinTail() : readLogTail(path);
  const explained = explainOomText(text);
  let found: ExplainedOom[] = explained.found;
  const run = runOf(path, opts.run);
  if (run !== undefined && found.length) found = await withRunEvidence(found, run);
  const where = path === '-' ? 'standard input' : plain(path);
  if (opts.json) {
    io.out(
      jsonText({
        ooms: found.map((e) => oomJson(e.diagnosis, e.message, e.line)),
        ...(explained.omitted ? { omitted: explained.omitted } : {}),
      }) + '\n',
    );
    return 0;
  }
  if (!found.length) io.out(`no CUDA out-of-memory message in ${where}\n`);
  found.forEach((e, i) => io.out(`${i ? '\n' : ''}${renderDiagnosis(e.diagnosis, placeOf(found, i, where))}`));
  if (explained.omitted) io.out(`\n${omittedNote(explained.omitted)}\n`);
  return 0;
}
