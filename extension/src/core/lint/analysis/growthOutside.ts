import type { SyntaxNode } from '../syntax/syntaxNode';
import { NodeIndex, anchored, calleeOf, nameOccurrences } from '../syntax/nodeIndex';
import { DATA_ITER, isStep } from './calls';
import { qualifyDotted } from './imports';
import { iterOf, loopFacts } from './loops';
import { ancestors, isLoop, scopeOf } from './scopes';

// Whether what surrounds a loop bounds a name added to in it (growth.ts asks, once per loop and name).

/** What the binds before the loop and the code after it say: bound there, not reset by an outer loop, not gathered after. */
export function outsideVerdict(name: string, loop: SyntaxNode, binds: readonly SyntaxNode[]): boolean {
  const scope = scopeOf(loop);
  const before = binds.filter((x) => x.endIndex <= loop.startIndex);
  if (!before.length) return false;
  // Reset in an enclosing loop, and this one repeats a few times over no data (`for _ in range(hp.rep_discriminator)`):
  // bounded by that count, released every outer pass.
  const outers = ancestors(loop).filter(isLoop);
  const resetOutside = before.every((x) => outers.some((o) => o.startIndex < x.startIndex && x.endIndex <= o.endIndex));
  if (
    resetOutside &&
    loop.type === 'for_statement' &&
    /^range\(/.test(iterOf(loop)) &&
    !DATA_ITER.test(iterOf(loop)) &&
    !/len\(/.test(iterOf(loop))
  )
    return false;
  // Made anew in an outer loop that steps the optimizer, around micro-batches that back-propagate but do not step: it holds one step's
  // micro-batches (allennlp's batch_group_outputs), not every step's.
  if (
    loopFacts(loop).backward.length > 0 &&
    !stepsOptimizer(loop) &&
    before.some((x) => ancestors(loop).some((o) => isLoop(o) && o.startIndex < x.startIndex && stepsOptimizer(o)))
  )
    return false;
  return !gatheredAfter(nameOccurrences(scope, name), loop, scope);
}

const GATHER = new Set(['torch.cat', 'torch.concat', 'torch.concatenate', 'torch.stack', 'torch.vstack', 'torch.hstack', 'torch.sum']);

/**
 * Whether the name at `ids` (its occurrences in the scope), filled in a loop that trains nothing and does not walk a data loader, is joined
 * into one tensor right after it (`torch.cat(tiles)`, `torch.stack(aux_losses).mean()`): the chunks
 * of one step's result (tiled decoding, micro-batches), not values kept across steps.
 */
function gatheredAfter(ids: readonly SyntaxNode[], loop: SyntaxNode, scope: SyntaxNode): boolean {
  if (loopFacts(loop).train || (loop.type === 'for_statement' && /loader|dataset/i.test(iterOf(loop)))) return false;
  return ids.some((id) => {
    const call = id.parent?.type === 'argument_list' ? id.parent.parent : null;
    if (!call || call.type !== 'call' || id.startIndex < loop.endIndex || !scopeOf(call).equals(scope)) return false;
    const callee = calleeOf(call).text;
    return callee === 'sum' || GATHER.has(qualifiedName(scope, callee));
  });
}

/** A dotted name's qualified form, through the file's imports (`th.cat` → torch.cat). */
function qualifiedName(n: SyntaxNode, dotted: string): string {
  const bindings = NodeIndex.of(n)?.bindings;
  return (bindings && qualifyDotted(bindings, dotted)) ?? dotted;
}

/** Whether a loop's body calls an optimizer step (or zero_grad), itself. */
function stepsOptimizer(loop: SyntaxNode): boolean {
  return anchored(loop, /step|zero_grad/, ['call']).some((c) => isStep(calleeOf(c).text));
}
