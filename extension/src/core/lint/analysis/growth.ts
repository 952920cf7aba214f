import type { SyntaxNode } from '../syntax/syntaxNode';
import { calleeOf, memo, nameOccurrences } from '../syntax/nodeIndex';
import { outsideVerdict } from './growthOutside';
import { ancestors, bindsName, scopeOf } from './scopes';

// Whether a name grows across the steps of a loop (kept, appended to, gathered after the loop).

/** What decides growth for a name in a loop, found once per (loop, name): every accumulation in the loop asks. */
interface Growth {
  /** Where `name` is bound in the loop's scope. */
  binds: readonly SyntaxNode[];
  /** Those inside the loop, other than a lazy first-step initialization: each bounds the name. */
  inside: readonly SyntaxNode[];
  /** The verdict of the binds before the loop and of what follows it, the accumulation aside. */
  outside: boolean;
  /** Where the last call back-propagating the name (or what is taken out of it) starts; -1 for none. */
  lastBackward: number;
}

/**
 * Whether `name`, added to at `at` inside `loop`, grows across steps: bound before the loop in the
 * same scope, never re-bound inside it (a per-step reset bounds it), and not back-propagated later
 * (a deliberate sum of losses is how multi-part objectives work).
 */
export function growsAcrossSteps(name: string, at: SyntaxNode, loop: SyntaxNode): boolean {
  // Memoised per (loop, name): 8,000 `total += t` in one loop asked a walk over every occurrence each (issue 39).
  const g = memo(loop, `grows:${loop.id}:${name}`, () => growth(name, loop));
  if (g.inside.some((x) => !x.equals(at))) return false;
  // `at` itself a bind before the loop (never so for an accumulation in it): the binds without it.
  const outside =
    at.startIndex < loop.startIndex && g.binds.some((x) => x.equals(at))
      ? outsideVerdict(
          name,
          loop,
          g.binds.filter((x) => !x.equals(at)),
        )
      : g.outside;
  return outside && !(g.lastBackward > at.startIndex);
}

function growth(name: string, loop: SyntaxNode): Growth {
  const scope = scopeOf(loop);
  // Where `name` is bound and used in this scope: found from its occurrences rather than a walk over the scope.
  const binds: SyntaxNode[] = [];
  for (const id of nameOccurrences(scope, name)) {
    let p = id.parent;
    while (p && (p.type === 'pattern_list' || p.type === 'tuple_pattern' || p.type === 'list_pattern')) p = p.parent;
    if (p?.type === 'assignment' && bindsName(p.childForFieldName('left'), name) && scopeOf(p).equals(scope)) binds.push(p);
  }
  // A bind inside the loop bounds it, unless it is a lazy first-step initialization (`if acc is None: acc = …`,
  // which also sets up the accumulators beside it).
  const lazy = (x: SyntaxNode) =>
    ancestors(x).some(
      (p) => p.type === 'if_statement' && /^([\w.]+\s+is\s+None|not\s+[\w.]+)$/.test(p.childForFieldName('condition')?.text ?? ''),
    );
  const inside = binds.filter((x) => x.startIndex > loop.startIndex && x.endIndex <= loop.endIndex && !lazy(x));
  // Back-propagated later, directly or through what is taken out of it (`loss = losses[i]`, `for loss in losses`).
  const aliases = [name, ...takenFrom(scope, name, loop)];
  const word = new RegExp(`\\b(${aliases.join('|')})\\b`);
  let lastBackward = -1;
  for (const n of nameOccurrences(scope, 'backward', true)) {
    const c = n.parent?.type === 'attribute' ? n.parent.parent : n.parent;
    if (c?.type === 'call' && /(^|\.)backward$/.test(calleeOf(c).text) && scopeOf(c).equals(scope) && word.test(c.text))
      lastBackward = Math.max(lastBackward, c.startIndex);
  }
  return { binds, inside, outside: outsideVerdict(name, loop, binds), lastBackward };
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
