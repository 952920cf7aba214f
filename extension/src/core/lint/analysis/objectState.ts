import type { SyntaxNode } from '../syntax/syntaxNode';
import type { Qualify } from './scopes';
import { calleeOf, memo, nodesOf } from '../syntax/nodeIndex';
import { constructedAs } from './constructed';
import { accumulations } from './accumulate';
import { growsAcrossSteps } from './growth';
import { GradFlow, graphAtom } from './gradFlow';
import { resetInHook } from './hooks';
import { mayKeepInObject, stored } from './stores';
import { crossRefs, paramNames } from './summaries';

// `meter.update(loss)`: a method of an object kept across steps that adds what it is given to the object's own state.

export interface ObjectState {
  /** The object: `meter`, `self.tracker`. */
  name: string;
  /** The graph-carrying argument at the call. */
  atom: SyntaxNode;
  /** `self.sum += val * n` (add) or `self.values.append(val)` (store). */
  kind: 'add' | 'store';
  /** `AverageMeter.update`, for the message. */
  how: string;
  /** Where the method keeps it (`self.sum += val * n`), when the class is this file's: reported there, as a helper's store is. */
  at?: SyntaxNode;
}

/** The file's method `name` of class `cls`. */
function methodOf(file: SyntaxNode, cls: string, name: string): SyntaxNode | undefined {
  // Another function's body decides: an edit there re-lints the callers (session.ts, crossCheck.ts).
  crossRefs(file.tree).defs.add(name);
  return memo(file, `method:${cls}.${name}`, () => {
    const c = nodesOf(file, 'class_definition').find((k) => k.childForFieldName('name')?.text === cls);
    const body = c?.childForFieldName('body');
    if (!body) return undefined;
    for (const s of body.namedChildren) {
      const fn = s?.type === 'decorated_definition' ? s.childForFieldName('definition') : s;
      if (fn?.type === 'function_definition' && fn.childForFieldName('name')?.text === name) return fn;
    }
    return undefined;
  });
}

/** What a method does with its parameters `seeds` (given graphs): adds one to, or stores one in, `self`'s state. */
function keeps(
  fn: SyntaxNode,
  seeds: readonly string[],
  qualify: Qualify,
  noGrad: (n: SyntaxNode) => boolean,
): { kind: 'add' | 'store'; at: SyntaxNode } | undefined {
  const body = fn.childForFieldName('body');
  if (!body || !seeds.length) return undefined;
  for (const { node, flow } of GradFlow.traceFrom(body, seeds, qualify, noGrad)) {
    if (noGrad(node)) continue;
    if (
      node.type !== 'call' &&
      accumulations(node, qualify).some((a) => a.name.startsWith('self.') && a.added.some((x) => graphAtom(x, flow)))
    )
      return { kind: 'add', at: node };
    const s = stored(node);
    if (s?.name.startsWith('self.') && graphAtom(s.value, flow)) return { kind: 'store', at: node };
  }
  return undefined;
}

/** `meter.update(loss, n)` in a step loop, on an object that outlives the step, keeping the graph-carrying argument. */
export function objectState(
  call: SyntaxNode,
  loop: SyntaxNode,
  carries: (arg: SyntaxNode) => boolean,
  qualify: Qualify,
  noGrad: (n: SyntaxNode) => boolean,
): ObjectState | undefined {
  if (!mayKeepInObject(call)) return undefined;
  const { node: f, method } = calleeOf(call);
  const obj = f!.childForFieldName('object')!.text;
  const args = (call.childForFieldName('arguments')?.namedChildren ?? []).filter(
    (a): a is SyntaxNode => !!a && a.type !== 'keyword_argument',
  );
  const graphArgs = args.map(carries);
  const first = args.findIndex((_, i) => graphArgs[i]);
  if (first < 0) return undefined;
  if (obj.startsWith('self.') ? resetInHook(loop, obj) : !growsAcrossSteps(obj, call, loop)) return undefined;
  const file = call.tree.rootNode;
  const cls = constructedAs(file, obj);
  if (!cls) return undefined;
  const fn = methodOf(file, cls, method!);
  const atom = args[first]!;
  if (!fn) {
    // A meter from another file (pytorch/examples' AverageMeter and its copies): update(val, n) adds val to a running sum.
    return /Meter$/.test(cls) && method === 'update' && first === 0 ? { name: obj, atom, kind: 'add', how: `${cls}.update` } : undefined;
  }
  const params = paramNames(fn, true);
  const k = keeps(
    fn,
    params.filter((_, i) => graphArgs[i]),
    qualify,
    noGrad,
  );
  return k ? { name: obj, atom, kind: k.kind, how: `${cls}.${method}`, at: k.at } : undefined;
}

/** What a method keeps of each parameter in `self`'s state, as crossCheck.ts compares it before and after an edit. */
export function keptParams(fn: SyntaxNode, qualify: Qualify, noGrad: (n: SyntaxNode) => boolean): string {
  if (!/self\./.test(fn.text)) return '';
  return paramNames(fn, true)
    .map((p) => `${p}:${keeps(fn, [p], qualify, noGrad)?.kind ?? ''}`)
    .join(',');
}
