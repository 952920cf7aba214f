import type { SyntaxNode } from '../syntax/syntaxNode';
import { enclosingLoop, scopeOf } from '../analysis/scopes';
import { anchored, calleeOf, within } from '../syntax/nodeIndex';
import { findingAt } from '../types';
import type { Finding, RuleContext } from '../types';
import { keyword, removeArgument } from './kwargs';
import { defineRule } from './rule';

/** HR012 pin-memory-misuse: (a) pinning each tensor in a loop; (c) a non-blocking copy to the host read before a sync. */
export function hr012(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const c of anchored(ctx.root, /\bnon_blocking\b/, ['call'])) {
    const f = c ? calleeOf(c).node : null;
    if (!c || f?.type !== 'attribute' || f.childForFieldName('attribute')?.text !== 'to') continue;
    const nb = keyword(c, 'non_blocking');
    if (nb?.childForFieldName('value')?.text !== 'True') continue;
    const src = f.childForFieldName('object');
    // (a) x.pin_memory().to(dev, non_blocking=True), fresh each iteration.
    if (
      src?.type === 'call' &&
      src.childForFieldName('function')?.childForFieldName('attribute')?.text === 'pin_memory' &&
      !!enclosingLoop(c)
    ) {
      const pinned = src.childForFieldName('function')!.childForFieldName('object')!;
      out.push(
        findingAt(
          'HR012',
          'info',
          src,
          'pin_memory() on each tensor in a loop allocates page-locked host memory and copies into it every time, which costs more than the transfer saves. Pin once at the source (DataLoader(pin_memory=True)) or reuse a pinned buffer.',
          [
            {
              title: 'Drop the per-tensor pin_memory()',
              preferred: true,
              edits: [{ start: src.startIndex, end: src.endIndex, text: pinned.text }],
            },
          ],
        ),
      );
      continue;
    }
    // (c) y = t.to("cpu", non_blocking=True), then y used on the host with no synchronize in between.
    const first = c.childForFieldName('arguments')?.namedChild(0)?.text ?? '';
    const a = c.parent?.type === 'assignment' ? c.parent : undefined;
    const y = a?.childForFieldName('left');
    if (!/^["']cpu["']$/.test(first) || y?.type !== 'identifier') continue;
    const after = within(scopeOf(c), ['call']).filter((x) => x.startIndex > c.endIndex);
    const sync = after.find((x) => /synchronize$/.test(calleeOf(x).text));
    const use = after.find(
      (x: SyntaxNode) =>
        calleeOf(x).text.match(new RegExp(`^(${y.text}\\.(numpy|item|tolist)|print)$`)) &&
        (calleeOf(x).text !== 'print' || new RegExp(`\\b${y.text}\\b`).test(x.text)),
    );
    if (!use || (sync && sync.startIndex < use.startIndex)) continue;
    out.push(
      findingAt(
        'HR012',
        'warning',
        nb,
        `\`${y.text}\` is copied to the host with non_blocking=True and read (line ${use.startPosition.row + 1}) before any synchronize: it may still hold stale data. Drop non_blocking=True, or synchronize first.`,
        [{ title: 'Drop non_blocking=True', preferred: true, edits: [removeArgument(nb, ctx)] }],
      ),
    );
  }
  return out;
}

export const HR012 = defineRule({
  id: 'HR012',
  name: 'pin-memory-misuse',
  severities: ['info', 'warning'],
  dependsOn: [],
  run: hr012,
});
