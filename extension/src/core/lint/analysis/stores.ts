import type { SyntaxNode } from '../syntax/syntaxNode';
import { selfAttribute } from './hooks';
import { calleeOf } from '../syntax/nodeIndex';
import { calledFunctions, definitionSites } from './summaries';
import { scopeOf } from './scopes';

/** The container and the stored value: `xs.append(v)`, `xs.extend([v])`, `xs.extend(t)`, `xs += [v]`, `d[k] = v`. */
export function stored(n: SyntaxNode): { name: string; value: SyntaxNode } | undefined {
  if (n.type === 'call') {
    const { node: f, method } = calleeOf(n);
    const obj = f?.childForFieldName('object');
    const arg = n.childForFieldName('arguments')?.namedChild(0);
    // `preds[key].append(v)` (a defaultdict(list)) keeps v in preds.
    const base = obj?.type === 'subscript' ? obj.childForFieldName('value') : obj;
    if (!base || !(base.type === 'identifier' || selfAttribute(base)) || !arg) return undefined;
    if (method === 'append') return { name: base.text, value: arg };
    if (method === 'extend' && arg.type === 'list' && arg.namedChild(0)) return { name: base.text, value: arg.namedChild(0)! };
    // `xs.extend(out)`: a tensor's rows (views that keep its graph), or a list's items (a name the flow follows, not a call's result).
    if (method === 'extend' && (arg.type === 'identifier' || arg.type === 'attribute')) return { name: base.text, value: arg };
    return undefined;
  }
  const left = n.childForFieldName('left');
  const right = n.childForFieldName('right');
  if (!left || !right) return undefined;
  if (
    n.type === 'augmented_assignment' &&
    n.childForFieldName('operator')?.text === '+=' &&
    (left.type === 'identifier' || selfAttribute(left)) &&
    right.type === 'list' &&
    right.namedChild(0)
  )
    return { name: left.text, value: right.namedChild(0)! };
  const base = left.type === 'subscript' ? left.childForFieldName('value') : null;
  // `d["loss"] = v` (a constant key) overwrites one entry every time: it holds the last value, not each one.
  const key = left.type === 'subscript' ? left.childForFieldName('subscript') : null;
  // (Unless it is a tensor buffer, written in place: each write chains onto the buffer's graph, `metrics[1] = losses.mean()`.)
  if (key && /^(string|integer|true|false|none)$/.test(key.type) && !(base?.type === 'identifier' && tensorBuffer(n, base.text)))
    return undefined;
  if (n.type === 'assignment' && base && (base.type === 'identifier' || selfAttribute(base))) return { name: base.text, value: right };
  return undefined;
}

/** Whether `name` was made a tensor in n's function or script (`buf = torch.zeros(n, device=d)`). */
function tensorBuffer(n: SyntaxNode, name: string): boolean {
  return new RegExp(`(?<![\\w.])${name}\\s*=\\s*torch\\.(zeros|ones|empty|full|zeros_like|ones_like|empty_like|full_like)\\(`).test(
    scopeOf(n).text,
  );
}

/** A call that may store for its caller: two or more values given to a helper of this file (helperStores.ts). */
export function passesToHelper(c: SyntaxNode): boolean {
  return c.type === 'call' && (c.childForFieldName('arguments')?.namedChildCount ?? 0) >= 2 && calledFunctions(c).length > 0;
}

/** A call that may add to its object's state (read before the data flow): a method the file defines, or a meter's update. */
export function mayKeepInObject(c: SyntaxNode): boolean {
  const { node: f, method } = calleeOf(c);
  const obj = f?.type === 'attribute' ? f.childForFieldName('object') : null;
  if (!method || !obj || !(obj.type === 'identifier' || selfAttribute(obj)) || obj.text === 'self') return false;
  if (!c.childForFieldName('arguments')?.namedChildCount) return false;
  return method === 'update' || definitionSites(c.tree.rootNode).has(method);
}
