import { versionGuarded } from '../facts';
import { findingAt } from '../types';
import type { Finding, RuleContext } from '../types';

const CHECKPOINT = new Set(['torch.utils.checkpoint.checkpoint', 'torch.utils.checkpoint.checkpoint_sequential']);

/** HR006 checkpoint-use-reentrant: say `use_reentrant` explicitly (the default is changing; False is the recommended one). */
export function hr006(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const c of ctx.root.descendantsOfType('call')) {
    if (!c || !CHECKPOINT.has(ctx.qualify(c.childForFieldName('function')) ?? '')) continue;
    const args = c.childForFieldName('arguments');
    if (!args || versionGuarded(c)) continue;
    const named = args.namedChildren.filter((a) => a !== null);
    if (named.some((a) => a.type === 'keyword_argument' && a.childForFieldName('name')?.text === 'use_reentrant')) continue;
    if (named.some((a) => a.type === 'dictionary_splat')) continue; // **kwargs may carry it
    const close = args.endIndex - 1;
    const before = ctx.text.slice(args.startIndex + 1, close).trimEnd();
    const text = before === '' ? 'use_reentrant=False' : before.endsWith(',') ? ' use_reentrant=False' : ', use_reentrant=False';
    const at = args.startIndex + 1 + before.length;
    out.push(
      findingAt('HR006', 'warning', c, 'checkpoint() without use_reentrant: PyTorch warns and will change the default; the non-reentrant variant (use_reentrant=False) is the recommended one and supports more (keyword arguments, nested checkpoints, inputs without grad).', [
        { title: 'Add use_reentrant=False', preferred: true, edits: [{ start: at, end: at, text }] },
      ]),
    );
  }
  return out;
}
