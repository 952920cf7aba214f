import type { SyntaxNode } from '../syntax/syntaxNode';
import { ancestors } from './scopes';

// Code that runs only sometimes: in an except handler, after an OOM flag, every N steps, behind a version check.

/** An `if` on an out-of-memory flag, as an OOM handler sets it (`has_oom`, `self.oom`, `ooms > 0`; not `zoom`). */
const OOM_CONDITION = /(?:^|[^a-z0-9])ooms?(?![a-z0-9])|out_?of_?memory/i;

/** Whether n is inside an `except` handler, an `if` after an OOM, or an `if` that runs every N steps (`step % N == 0`). */
export function guarded(n: SyntaxNode, stop: SyntaxNode): boolean {
  for (const p of ancestors(n)) {
    if (p.equals(stop)) return false;
    if (p.type === 'except_clause') return true;
    if (p.type !== 'if_statement') continue;
    const condition = p.childForFieldName('condition')?.text ?? '';
    // Every N steps (`step % N == 0`), or only the first ones (`self.get_num_updates() == 0`, `step < 3`).
    if (/%|(?:step|update|iter|epoch|batch)\w*(?:\(\))?\s*(?:==|<=?)\s*\d/i.test(condition)) return true;
    // After an OOM, under the flag its handler set (fairseq's trainer: `if has_oom:`).
    if (OOM_CONDITION.test(condition)) return true;
  }
  return false;
}

/** Whether n is inside a `try` that handles ImportError or AttributeError (a version guard). */
export function versionGuarded(n: SyntaxNode): boolean {
  return ancestors(n).some(
    (p) => p.type === 'try_statement' && /except\s*\(?[^:]*\b(ImportError|AttributeError|ModuleNotFoundError)\b/.test(p.text),
  );
}
