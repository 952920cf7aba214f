import type { SyntaxNode } from '../syntax/syntaxNode';
import { NodeIndex } from '../syntax/nodeIndex';
import { moduleFacts } from './modules';
import type { ModuleFacts } from './modules';
import { enclosingClass } from './scopes';

// Asking the module facts about a call or a name where it is: `self.x` is its class's own.

/** A callee that calls a module: `model(x)`, `self.enc(x)`, `self.blocks[i](x)`, or runs one (`net.predict(x)`); `cls`: the class the call is in. */
export function callsModule(callee: string, facts: ModuleFacts, cls?: string): boolean {
  const c = callee.replace(/\[[^\]]*\]$/, '');
  const key = (n: string) => (n.startsWith('self.') ? `${cls}:${n}` : n);
  if (facts.names.has(key(c))) return true;
  const dot = c.lastIndexOf('.');
  // Not generate(): Hugging Face runs it under no_grad.
  return dot > 0 && /^(forward|predict|infer|inference|\w+_step)$/.test(c.slice(dot + 1)) && facts.names.has(key(c.slice(0, dot)));
}

/** The class a node is in, by name ('' outside any). */
export function classOfNode(n: SyntaxNode): string {
  return enclosingClass(n)?.childForFieldName('name')?.text ?? '';
}

/** `self.x` keyed by its class (`Net:self.x`), other names as they are: how ModuleFacts holds them. */
export function moduleKey(name: string, n: SyntaxNode): string {
  return name.startsWith('self.') ? `${classOfNode(n)}:${name}` : name;
}

/** The module facts of the file a node is in (its import bindings from the lint under way). */
export function modulesOf(n: SyntaxNode): ModuleFacts {
  return moduleFacts(n.tree.rootNode, NodeIndex.of(n)?.bindings ?? new Map());
}

/** Whether a text may call one of the file's modules by name (a superset, read before any node). */
export function mayCallModule(n: SyntaxNode, text: string): boolean {
  const names = modulesOf(n).names;
  if (!names.size) return false;
  const cls = classOfNode(n);
  for (const m of text.matchAll(/((?:self\.)?\w+)\s*(?:\[[^\]]*\]\s*)?[.(]/g))
    if (names.has(m[1]!.startsWith('self.') ? `${cls}:${m[1]}` : m[1]!)) return true;
  return false;
}
