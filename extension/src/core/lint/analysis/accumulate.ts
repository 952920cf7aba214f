import type { SyntaxNode } from '../syntax/syntaxNode';
import type { Qualify } from './scopes';
import { calleeOf, within } from '../syntax/nodeIndex';
import { selfAttribute } from './hooks';

// The shapes of an accumulation: what is added to what, however the code writes it.

export interface Accumulation {
  /** The accumulator: `acc`, `self.total` (`acc[k]` accumulates into acc). */
  name: string;
  /** What is added to it. */
  added: SyntaxNode[];
  /** Joined as a tensor (`torch.cat([acc, out])`): stays a tensor, so `.item()` is no fix. */
  joined?: boolean;
}

const JOIN = /^torch\.(cat|concat|concatenate|hstack|vstack|row_stack|column_stack)$/;

/** `acc` or `acc[k]` (or `self.acc…`): the accumulator's name, when the target is one. */
function target(left: SyntaxNode | null): string | undefined {
  const base = left?.type === 'subscript' ? left.childForFieldName('value') : left;
  return base && (base.type === 'identifier' || selfAttribute(base)) ? base.text : undefined;
}

/** `acc + x` or `x + acc` where acc is `lhs`: what is added. */
function addedTo(lhs: SyntaxNode, right: SyntaxNode): SyntaxNode | undefined {
  if (right.type !== 'binary_operator' || right.childForFieldName('operator')?.text !== '+') return undefined;
  const l = right.childForFieldName('left');
  const r = right.childForFieldName('right');
  if (l?.text === lhs.text) return r ?? undefined;
  return undefined;
}

/** `torch.cat([acc, out])`, `acc if acc is None else torch.cat((acc, out), 0)`, `out if … else torch.cat(…)`. */
function joinedTo(lhs: string, right: SyntaxNode, qualify: Qualify): SyntaxNode[] | undefined {
  if (right.type === 'conditional_expression') {
    const branches = [right.namedChild(0), right.namedChild(2)];
    for (const b of branches) {
      const j = b && joinedTo(lhs, b, qualify);
      if (j) return j;
    }
    return undefined;
  }
  if (right.type !== 'call' || !JOIN.test(qualify(calleeOf(right).node) ?? '')) return undefined;
  const seq = right.childForFieldName('arguments')?.namedChild(0);
  if (!seq || (seq.type !== 'list' && seq.type !== 'tuple')) return undefined;
  const items = seq.namedChildren.filter((x): x is SyntaxNode => !!x);
  if (!items.some((x) => x.text === lhs)) return undefined;
  return items.filter((x) => x.text !== lhs);
}

/**
 * The accumulations a statement makes: `acc += x`, `acc[k] += x`, `acc = acc + x`,
 * `acc = torch.cat([acc, x])`, `acc.add_(x)`, and each pair of `a[0], a[1] = a[0] + x, a[1] + y`.
 */
export function accumulations(a: SyntaxNode, qualify: Qualify): Accumulation[] {
  // `acc.add_(x)`, `acc[k].add_(x)`: in place, the same as `+=`.
  if (a.type === 'call') {
    const f = calleeOf(a).node;
    const name =
      f?.type === 'attribute' && f.childForFieldName('attribute')?.text === 'add_' ? target(f.childForFieldName('object')) : undefined;
    const x = a.childForFieldName('arguments')?.namedChildren.find((n) => n?.type !== 'keyword_argument');
    return name && x ? [{ name, added: [x] }] : [];
  }
  const left = a.childForFieldName('left');
  const right = a.childForFieldName('right');
  if (!left || !right) return [];
  if (a.type === 'augmented_assignment') {
    const name = a.childForFieldName('operator')?.text === '+=' ? target(left) : undefined;
    return name ? [{ name, added: [right] }] : [];
  }
  if (a.type !== 'assignment') return [];
  if ((left.type === 'pattern_list' || left.type === 'tuple_pattern') && (right.type === 'expression_list' || right.type === 'tuple')) {
    const ls = left.namedChildren;
    const rs = right.namedChildren;
    if (ls.length !== rs.length) return [];
    return ls.flatMap((l, i) => {
      const name = l && target(l);
      const x = l && rs[i] && addedTo(l, rs[i]!);
      return name && x ? [{ name, added: [x] }] : [];
    });
  }
  if (left.type === 'identifier' || selfAttribute(left)) {
    const x = addedTo(left, right);
    if (x) return [{ name: left.text, added: [x] }];
    const j = joinedTo(left.text, right, qualify);
    if (j?.length) return [{ name: left.text, added: j, joined: true }];
  }
  return [];
}

/**
 * Names unpacked beside a back-propagated one (`loss, mf = model.bpr_loss(…)`, then `loss.backward()`):
 * parts of one loss share its graph. Found once per loop (8,000 accumulations walked it each: issue 39).
 */
export function partsOfBackpropagated(body: SyntaxNode, backpropagated: (n: string) => boolean): (name: string) => boolean {
  let parts: Set<string> | undefined;
  return (name) => {
    if (!parts) {
      const found = new Set<string>();
      for (const a of within(body, ['assignment'])) {
        const left = a.childForFieldName('left');
        if (left?.type !== 'pattern_list' && left?.type !== 'tuple_pattern') continue;
        const names = left.namedChildren.filter((n) => n?.type === 'identifier').map((n) => n!.text);
        const back = new Set(names.filter(backpropagated));
        for (const n of names) if (back.size > 1 || (back.size === 1 && !back.has(n))) found.add(n);
      }
      parts = found;
    }
    return parts.has(name);
  };
}
