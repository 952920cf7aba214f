import type { SyntaxNode } from '../syntax/syntaxNode';

// Where a node is: its ancestors, its scope (the function or module around it), what an assignment binds.

export type Qualify = (n: SyntaxNode | null) => string | undefined;

export function ancestors(n: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let p = n.parent; p; p = p.parent) out.push(p);
  return out;
}

export const isLoop = (n: SyntaxNode): boolean => n.type === 'for_statement' || n.type === 'while_statement';

/** The innermost `for`/`while` around n (below `stop`, when given), or undefined. */
export function enclosingLoop(n: SyntaxNode, stop?: SyntaxNode): SyntaxNode | undefined {
  for (let p = n.parent; p && !(stop && p.equals(stop)); p = p.parent) if (isLoop(p)) return p;
  return undefined;
}

/** The innermost function around n (nested functions are their own scope), or the module. */
export function scopeOf(n: SyntaxNode): SyntaxNode {
  for (const p of ancestors(n)) if (p.type === 'function_definition' || p.type === 'module') return p;
  return n;
}

/** The class a method is defined in (directly in its body, decorated or not). */
export function classOfMethod(fn: SyntaxNode): SyntaxNode | undefined {
  const holder = fn.parent?.type === 'decorated_definition' ? fn.parent : fn;
  const cls = holder.parent?.type === 'block' ? holder.parent.parent : undefined;
  return cls?.type === 'class_definition' ? cls : undefined;
}

/** The innermost class around n, at any depth. */
export function enclosingClass(n: SyntaxNode): SyntaxNode | undefined {
  for (let p = n.parent; p; p = p.parent) if (p.type === 'class_definition') return p;
  return undefined;
}

/** Whether an assignment target binds `name`: `name = …`, `a, name = …`, `(name, b) = …` (and `(name) = …`, a tuple pattern too). */
export function bindsName(left: SyntaxNode | null, name: string): boolean {
  if (!left) return false;
  if (left.type === 'identifier') return left.text === name;
  if (left.type === 'pattern_list' || left.type === 'tuple_pattern' || left.type === 'list_pattern')
    return left.namedChildren.some((c) => bindsName(c, name));
  return false;
}
