import type { SyntaxNode } from '../syntax/syntaxNode';
import { NodeIndex, anchored, calleeOf, nameOccurrences } from '../syntax/nodeIndex';
import { DATA_ITER, isStep } from './calls';
import { qualifyDotted } from './imports';
import { iterOf, loopFacts } from './loops';
import { ancestors, bindsName, isLoop, scopeOf } from './scopes';

// Whether a name grows across the steps of a loop (kept, appended to, gathered after the loop).

/**
 * Whether `name`, added to at `at` inside `loop`, grows across steps: bound before the loop in the
 * same scope, never re-bound inside it (a per-step reset bounds it), and not back-propagated later
 * (a deliberate sum of losses is how multi-part objectives work).
 */
export function growsAcrossSteps(name: string, at: SyntaxNode, loop: SyntaxNode): boolean {
  const scope = scopeOf(loop);
  // Where `name` is bound and used in this scope: found from its occurrences rather than a walk over the scope.
  const ids = nameOccurrences(scope, name);
  const binds: SyntaxNode[] = [];
  for (const id of ids) {
    let p = id.parent;
    while (p && (p.type === 'pattern_list' || p.type === 'tuple_pattern' || p.type === 'list_pattern')) p = p.parent;
    if (p?.type === 'assignment' && !p.equals(at) && bindsName(p.childForFieldName('left'), name) && scopeOf(p).equals(scope))
      binds.push(p);
  }
  // A bind inside the loop bounds it, unless it is a lazy first-step initialization (`if acc is None: acc = …`,
  // which also sets up the accumulators beside it).
  const lazy = (x: SyntaxNode) =>
    ancestors(x).some(
      (p) => p.type === 'if_statement' && /^([\w.]+\s+is\s+None|not\s+[\w.]+)$/.test(p.childForFieldName('condition')?.text ?? ''),
    );
  if (binds.some((x) => x.startIndex > loop.startIndex && x.endIndex <= loop.endIndex && !lazy(x))) return false;
  if (!binds.some((x) => x.endIndex <= loop.startIndex)) return false;
  // Reset in an enclosing loop, and this one repeats a few times over no data (`for _ in range(hp.rep_discriminator)`):
  // bounded by that count, released every outer pass.
  const outers = ancestors(loop).filter(isLoop);
  const resetOutside = binds
    .filter((x) => x.endIndex <= loop.startIndex)
    .every((x) => outers.some((o) => o.startIndex < x.startIndex && x.endIndex <= o.endIndex));
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
    binds.some(
      (x) => x.endIndex <= loop.startIndex && ancestors(loop).some((o) => isLoop(o) && o.startIndex < x.startIndex && stepsOptimizer(o)),
    )
  )
    return false;
  if (gatheredAfter(ids, loop, scope)) return false;
  // Back-propagated later, directly or through what is taken out of it (`loss = losses[i]`, `for loss in losses`).
  const aliases = [name, ...takenFrom(scope, name, loop)];
  const word = new RegExp(`\\b(${aliases.join('|')})\\b`);
  const later = nameOccurrences(scope, 'backward', true)
    .map((n) => (n.parent?.type === 'attribute' ? n.parent.parent : n.parent))
    .filter(
      (c): c is SyntaxNode =>
        c?.type === 'call' && c.startIndex > at.startIndex && /(^|\.)backward$/.test(calleeOf(c).text) && scopeOf(c).equals(scope),
    );
  return !later.some((c) => word.test(c.text));
}

/** Names bound after `loop` from `name`: `x = name[i]`, `for x in name`. */
function takenFrom(scope: SyntaxNode, name: string, loop: SyntaxNode): string[] {
  const out: string[] = [];
  for (const id of nameOccurrences(scope, name)) {
    if (id.startIndex < loop.endIndex) continue;
    const p = id.parent;
    const a = p?.type === 'subscript' ? p.parent : p;
    const left =
      a?.type === 'assignment' && a.childForFieldName('right')?.equals(p!.type === 'subscript' ? p! : id)
        ? a.childForFieldName('left')
        : a?.type === 'for_statement' && a.childForFieldName('right')?.equals(id)
          ? a.childForFieldName('left')
          : null;
    if (left?.type === 'identifier') out.push(left.text);
  }
  return out;
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
