// The done-criteria of the call tree on a library-model capture, from `headroom analyze --json`:
// under every user line holding at least the breakdown share, the entries shown cover ≥ 90 % of its
// bytes, each named by its class where Python's parser says the line is in one (X.classes.json,
// made beside the capture by test/gpu/capture/library/classes.py), none of them plumbing; the
// tree adds up. Shared by the GPU test (sources present) and the unit test (committed captures).
import { BREAKDOWN_MIN_SHARE } from '../../extension/src/core/analysis/breakdown';
import { plumbingGroup } from '../../extension/src/core/analysis/plumbing';
import type { CallNodeJson } from '../../extension/src/core/analysis/treeJson';

export type Classes = Record<string, Record<string, string>>;

interface Frame {
  name: string;
  file: string;
  line: number;
  function: string;
  kind: string;
  plumbing?: string;
}

export interface ReportJson {
  at: { requested_bytes: number };
  lines: {
    file: string;
    line: number;
    self_bytes: number;
    breakdown?: { depth: number; bytes: number; share: number; frames: Frame[] }[];
  }[];
  tree: CallNodeJson;
}

export interface LineCheck {
  line: string;
  share: number;
  /** Of the line's self bytes, the top rows that are model code. */
  coverage: number;
  files: string[];
  named: number;
  unnamed: string[];
  problems: string[];
}

function addsUp(n: CallNodeJson, problems: string[]): void {
  const sum = (n.children ?? []).reduce((x, c) => x + c.bytes, n.self_bytes + (n.other_bytes ?? 0));
  if (sum !== n.bytes) problems.push(`tree node ${n.name}: ${sum} ≠ ${n.bytes}`);
  for (const c of n.children ?? []) addsUp(c, problems);
}

/** Checks a report; `classes` (file → line → qualname) is the parser's truth when the sources were at hand. */
export function checkReport(r: ReportJson, classes?: Classes): { lines: LineCheck[]; problems: string[] } {
  const problems: string[] = [];
  if (r.tree.bytes !== r.at.requested_bytes) problems.push(`tree ${r.tree.bytes} ≠ live ${r.at.requested_bytes}`);
  addsUp(r.tree, problems);
  const out: LineCheck[] = [];
  for (const l of r.lines) {
    const share = l.self_bytes / r.at.requested_bytes;
    if (share < BREAKDOWN_MIN_SHARE) continue;
    const c: LineCheck = { line: `${l.file}:${l.line}`, share, coverage: 0, files: [], named: 0, unnamed: [], problems: [] };
    out.push(c);
    if (!l.breakdown) {
      c.problems.push('no breakdown under a line over the share');
      continue;
    }
    let top = 0;
    for (const row of l.breakdown) {
      if (row.depth === 0 && row.frames[0]!.kind === 'library') top += row.bytes;
      for (const f of row.frames) {
        c.files.push(f.file.replace(/.*(?:site|dist)-packages\//, ''));
        // Plumbing is shown only where it allocated itself (the innermost frame, marked): never as a pass-through.
        if (plumbingGroup(f.file, f.function) && !f.plumbing) c.problems.push(`plumbing shown: ${f.file} ${f.function}`);
        const q = classes?.[f.file]?.[String(f.line)];
        const name = f.plumbing ? f.name.slice(0, -` [${f.plumbing}]`.length) : f.name;
        if (q === undefined) continue;
        // The parser's enclosing def must be the frame's function (else the source moved on): then the name is it.
        if (q.slice(q.lastIndexOf('.') + 1) !== f.function) continue;
        if (name === q || name.endsWith(` (${q})`)) c.named++;
        else c.unnamed.push(`${name} ≠ ${q} (${f.file}:${f.line})`);
      }
    }
    c.coverage = top / l.self_bytes;
    c.files = [...new Set(c.files)];
    if (c.coverage < 0.9) c.problems.push(`model code covers ${(c.coverage * 100).toFixed(1)} % of the line`);
    if (c.unnamed.length) c.problems.push(`not named by class: ${c.unnamed.slice(0, 3).join('; ')}`);
  }
  return { lines: out, problems };
}
