import type { SyntaxNode } from '../syntax/syntaxNode';
import { calleeOf, isWordChar, memo } from '../syntax/nodeIndex';
import { crossRefs } from './summaries';
import { classOfMethod } from './scopes';
import { moduleKey, modulesOf } from './moduleNames';

// Who calls a function of this file: found from one index of the file's call sites by name.

interface Site {
  at: number;
  /** `f(`: plain; `self.f(` / `cls.f(`: own; `x.f(`: on another object. */
  kind: 'plain' | 'own' | 'other';
}

/** Where the file's text calls `name`: one scan for it, or, once a few names were asked for, an index of every call (one scan costs a quarter of the index on 5,000 lines). */
function sitesOf(file: SyntaxNode, name: string): Site[] {
  const asked = memo(file, 'callers-asked', () => ({ n: 0 }));
  if (++asked.n > 4) return callIndex(file).get(name) ?? [];
  const text = file.text;
  const out: Site[] = [];
  for (let i = text.indexOf(name); i >= 0; i = text.indexOf(name, i + name.length)) {
    if ((i > 0 && isWordChar(text.charCodeAt(i - 1))) || isWordChar(text.charCodeAt(i + name.length))) continue;
    let j = i + name.length;
    while (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9 || text.charCodeAt(j) === 10 || text.charCodeAt(j) === 13) j++;
    if (text.charCodeAt(j) !== 40) continue;
    const before = text.slice(Math.max(0, i - 5), i);
    out.push({ at: file.startIndex + i, kind: !before.endsWith('.') ? 'plain' : /(^|[^\w.])(self|cls)\.$/.test(before) ? 'own' : 'other' });
  }
  return out;
}

/** Every `name(` in the file's text by name: one pass over its `(`s, each read back to the name before it. */
function callIndex(file: SyntaxNode): Map<string, Site[]> {
  return memo(file, 'callindex', () => {
    const text = file.text;
    const out = new Map<string, Site[]>();
    for (let p = text.indexOf('('); p >= 0; p = text.indexOf('(', p + 1)) {
      let e = p;
      while (e > 0 && (text.charCodeAt(e - 1) === 32 || text.charCodeAt(e - 1) === 9)) e--;
      let b = e;
      while (b > 0 && isWordChar(text.charCodeAt(b - 1))) b--;
      if (b === e || (text.charCodeAt(b) >= 48 && text.charCodeAt(b) <= 57)) continue;
      const name = text.slice(b, e);
      const before = text.slice(Math.max(0, b - 5), b);
      const site = {
        at: file.startIndex + b,
        kind: !before.endsWith('.') ? 'plain' : /(^|[^\w.])(self|cls)\.$/.test(before) ? 'own' : 'other',
      } as const;
      const list = out.get(name);
      if (list) list.push(site);
      else out.set(name, [site]);
    }
    return out;
  });
}

/** The call at a text offset (not in a comment or string). */
function callAt(file: SyntaxNode, at: number): SyntaxNode | undefined {
  let n: SyntaxNode | null = file.descendantForIndex(at);
  if (!n || n.type === 'comment' || n.type.startsWith('string')) return undefined;
  while (n && n.type !== 'call') n = n.type === 'module' ? null : n.parent;
  return n ?? undefined;
}

/** Calls in the file that run fn: `name(…)`, `self.name(…)`, and for a method `obj.name(…)` (`model.inference(g)`). */
export function callersOf(fn: SyntaxNode): SyntaxNode[] {
  const name = fn.childForFieldName('name')?.text;
  if (!name) return [];
  crossRefs(fn.tree).callers.add(name);
  return memo(fn, `callers:${fn.id}`, () => {
    const file = fn.tree.rootNode;
    const method = !!classOfMethod(fn);
    return [
      ...instanceCalls(fn, name),
      ...sitesOf(file, name).flatMap((s) => {
        if (s.kind === 'other' && !method) return [];
        const c = callAt(file, s.at);
        const t = c && calleeOf(c).text;
        const ok = t === name || t === `self.${name}` || t === `cls.${name}` || (method && !!t?.endsWith(`.${name}`));
        return c && ok && !(c.startIndex >= fn.startIndex && c.endIndex <= fn.endIndex) ? [c] : [];
      }),
    ];
  });
}

/** For a class's forward() or __call__: the calls of its instances (`self.encoder(x)` where `self.encoder = Encoder()`). */
function instanceCalls(fn: SyntaxNode, name: string): SyntaxNode[] {
  if (name !== 'forward' && name !== '__call__') return [];
  const cls = classOfMethod(fn)?.childForFieldName('name')?.text;
  if (!cls) return [];
  const file = fn.tree.rootNode;
  const facts = modulesOf(fn);
  const out: SyntaxNode[] = [];
  for (const [key, made] of facts.instances) {
    if (made !== cls) continue;
    const last = key.slice(key.lastIndexOf('.') + 1);
    for (const s of sitesOf(file, last)) {
      const c = callAt(file, s.at);
      if (c && moduleKey(calleeOf(c).text, c) === key && !(c.startIndex >= fn.startIndex && c.endIndex <= fn.endIndex)) out.push(c);
    }
  }
  return out;
}

/**
 * Where fn's name is handed on as a value (`partial(f, x)`, `callback=f`, `map(f, xs)`): where the
 * value is taken, its later calls usually are too. Found by a scan for the name (most functions have none).
 */
export function referencesOf(fn: SyntaxNode): SyntaxNode[] {
  const name = fn.childForFieldName('name')?.text;
  if (!name || classOfMethod(fn)) return [];
  return memo(fn, `refs:${fn.id}`, () => {
    const file = fn.tree.rootNode;
    const text = file.text;
    const out: SyntaxNode[] = [];
    for (let i = text.indexOf(name); i >= 0; i = text.indexOf(name, i + name.length)) {
      const at = file.startIndex + i;
      if (at >= fn.startIndex && at < fn.endIndex) continue;
      if (i > 0 && /[\w.]/.test(text[i - 1]!)) continue;
      const after = /^\w|^\s*\(/.exec(text.slice(i + name.length, i + name.length + 40));
      if (after) continue;
      const n = file.descendantForIndex(at);
      const p = n?.parent;
      if (n?.type !== 'identifier' || n.text !== name || !p) continue;
      // Not a binding of the name, an import of it, a parameter or a definition.
      if (
        /^(function_definition|class_definition|import_from_statement|aliased_import|dotted_name|parameters|default_parameter|typed_parameter|typed_default_parameter|global_statement|nonlocal_statement)$/.test(
          p.type,
        )
      )
        continue;
      if (
        (p.type === 'assignment' && p.childForFieldName('left')?.equals(n)) ||
        (p.type === 'keyword_argument' && p.childForFieldName('name')?.equals(n))
      )
        continue;
      out.push(n);
    }
    return out;
  });
}
