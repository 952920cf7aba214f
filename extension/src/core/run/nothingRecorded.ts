import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readSideRecords, readSideText } from '../safeFile';
import { plain } from '../../shared/text';

/** Why a run holds no snapshot: the agent's own reason, or what the run folder's contents imply. */
export type NothingRecorded = 'no-torch' | 'no-cuda' | 'no-memory' | 'agent-disabled' | 'no-agent' | 'unknown';

const AGENT_REASONS = new Set<string>(['no-torch', 'no-cuda', 'no-memory']);
/** The log is a few lines when nothing was recorded; a larger one is read up to this much. */
const LOG_LIMITS = { maxBytes: 1 << 20, maxLine: 64 << 10 };

/**
 * The launched process's agent writes `agent.log.jsonl` into the run folder at exit when it
 * recorded nothing; its last line says why (`nothing_recorded`). A folder written by someone else
 * is data: read inside the folder, capped, and anything malformed is passed over.
 */
function agentReason(runDir: string): string | undefined {
  let why = 'unknown'; // a log without a reason: the agent ran, but did not (or could not) say why
  try {
    for (const o of readSideRecords(join(runDir, 'agent.log.jsonl'), { root: runDir, ...LOG_LIMITS })) {
      const r = o.nothing_recorded;
      if (typeof r === 'string' && AGENT_REASONS.has(r)) why = r;
    }
  } catch {
    return undefined; // missing, a link out of the folder, not a regular file
  }
  return why;
}

/** `agent-disabled-<pid>.txt`: the shim could not start the agent in a process, and says why. */
function agentDisabled(runDir: string): string | undefined {
  let names: string[] = [];
  try {
    names = readdirSync(runDir).filter((n) => /^agent-disabled-\d+\.txt$/.test(n));
  } catch {
    return undefined;
  }
  for (const n of names.sort()) {
    try {
      const first = readSideText(join(runDir, n), { root: runDir, maxBytes: 64 << 10 })
        .split('\n')[0]!
        .trim();
      if (first) return first.replace(/^headroom: /, '');
    } catch {
      // refused: try the next one
    }
  }
  return undefined;
}

/** Why nothing was recorded in `runDir`, as a reason code and one plain sentence for the terminal. */
export function explainNothingRecorded(runDir: string): { reason: NothingRecorded; sentence: string } {
  const start = 'headroom: nothing was recorded:';
  const why = agentReason(runDir);
  if (why === 'no-torch')
    return {
      reason: why,
      sentence: `${start} the workload never imported torch (is it a Python script? did it run under another interpreter?)`,
    };
  if (why === 'no-cuda')
    return {
      reason: why,
      sentence: `${start} the workload imported torch but never used CUDA (torch.cuda.is_available() was False, or the model stayed on the CPU)`,
    };
  if (why === 'no-memory') return { reason: why, sentence: `${start} the workload used CUDA but never held CUDA memory` };
  if (why === 'unknown')
    return { reason: why, sentence: `${start} the agent ran but did not say why; its log is ${plain(join(runDir, 'agent.log.jsonl'))}` };
  const disabled = agentDisabled(runDir);
  if (disabled) return { reason: 'agent-disabled', sentence: `${start} ${plain(disabled)} (run folder: ${plain(runDir)})` };
  return {
    reason: 'no-agent',
    sentence: `${start} Headroom's agent never started in any Python process of the command (is the command Python? did it replace PYTHONPATH?); the run folder is ${plain(runDir)}`,
  };
}
