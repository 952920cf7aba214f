import type { SyntaxNode } from '../syntax/syntaxNode';

// What each top-level statement shows about modules, read once per text of the statement: an edit
// re-reads the one it is in, not the file (analysis/modules.ts puts the statements' evidence together).

export interface ClassInfo {
  name: string;
  bases: string[];
  /** Defines forward() / __call__ itself. */
  forward: boolean;
  call: boolean;
  /** nn.Module its only base and nothing built onto self: no parameters. */
  free: boolean;
}

export interface Binding {
  /** `model`, `Net:self.enc` (a `self.` name keyed by its class). */
  target: string;
  callee: string;
  /** The first argument, keyed like target (`DDP(model)`). */
  arg?: string;
  /** The callee's object, keyed (`model` in `model.to(dev)`). */
  object?: string;
  /** Classes built in the call's arguments (`nn.Linear`, `Block`): does a container hold parameters. */
  built: string[];
}

export interface UnitEvidence {
  classes: ClassInfo[];
  /** Names used as modules (`x.eval()`, `x.parameters()`), keyed. */
  used: string[];
  /** `name: Type` parameters, keyed name and the type's text. */
  annotated: [string, string][];
  bindings: Binding[];
}

const MODULE_METHOD =
  /(?<![\w.])((?:self\.)?\w+)\s*\.\s*(eval|parameters|named_parameters|modules|named_modules|children|named_children|buffers|register_forward_hook|register_forward_pre_hook)\s*\(/g;
/** `model.to(device)` as a statement of its own: a tensor's `.to()` returns a copy (dropped here), a module moves itself. */
const MOVED = /^[ \t]*((?:self\.)?\w+)[ \t]*\.[ \t]*(?:to|cuda|cpu|half|float|double|bfloat16)[ \t]*\(/gm;
const BINDING = /^[ \t]*((?:self\.)?\w+)[ \t]*(?::[^=\n]+)?=[ \t]*([\w.]+)[ \t]*\(([ \t]*(?:self\.)?\w+)?/gm;
const ANNOTATED = /[(,][ \t]*(\w+)[ \t]*:[ \t]*([\w.]+)/g;

const cache = new Map<string, UnitEvidence>();
const interned = new Map<string, UnitEvidence>();

/** The evidence of one top-level statement (none for one without a call or a class), read once per text. */
export function unitEvidence(u: SyntaxNode): UnitEvidence | undefined {
  const t = u.text;
  if (!/class|\(/.test(t)) return undefined;
  let e = cache.get(t);
  if (!e) {
    // The same evidence is the same object (a keystroke inside a name's use changes the text, not what it shows).
    const fresh = extract(u, t);
    const k = JSON.stringify(fresh);
    e = interned.get(k) ?? fresh;
    interned.set(k, e);
    cache.set(t, e);
  }
  return e;
}

/** The evidence of every top-level statement of the file, each read once per text it has had. */
export function unitsEvidence(file: SyntaxNode): UnitEvidence[] {
  // A stranger's file, or a long session: the cache holds what one large file's statements need, then starts again.
  if (cache.size > 20000) {
    cache.clear();
    interned.clear();
  }
  const out: UnitEvidence[] = [];
  for (const u of file.namedChildren) {
    const e = u && unitEvidence(u);
    if (e) out.push(e);
  }
  return out;
}

function extract(u: SyntaxNode, text: string): UnitEvidence {
  const classAt = (offset: number): string => {
    for (let n: SyntaxNode | null = u.descendantForIndex(u.startIndex + offset); n; n = n.equals(u) ? null : n.parent)
      if (n.type === 'class_definition') return n.childForFieldName('name')?.text ?? '';
    return '';
  };
  const key = (name: string, offset: number) => (name.startsWith('self.') ? `${classAt(offset)}:${name}` : name);
  const classes: ClassInfo[] = [];
  for (const m of text.matchAll(/^[ \t]*class[ \t]+(\w+)/gm)) {
    const c = u.descendantForIndex(u.startIndex + m.index + m[0].length - m[1]!.length)?.parent;
    if (c?.type !== 'class_definition' || c.childForFieldName('name')?.text !== m[1]) continue;
    const bases = (c.childForFieldName('superclasses')?.namedChildren ?? []).map((b) => b?.text ?? '');
    const body = c.childForFieldName('body')?.text ?? '';
    const free =
      bases.length === 1 &&
      /^(torch\.)?(nn\.)?Module$/.test(bases[0]!) &&
      !/self\.\w+\s*=\s*[\w.]+\s*\(|Parameter|register_|setattr|add_module/.test(body);
    classes.push({
      name: m[1]!,
      bases,
      forward: /^[ \t]*def[ \t]+forward[ \t]*\(/m.test(body),
      call: /def\s+__call__\s*\(/.test(body),
      free,
    });
  }
  const used: string[] = [];
  if (/\.\s*(eval|parameters|named_parameters|modules|named_modules|children|named_children|buffers|register_forward)/.test(text))
    for (const m of text.matchAll(MODULE_METHOD)) if (m[1] !== 'self') used.push(key(m[1]!, m.index));
  if (/\.[ \t]*(to|cuda|cpu|half|float|double|bfloat16)[ \t]*\(/.test(text)) {
    for (const m of text.matchAll(MOVED)) {
      let n: SyntaxNode | null = u.descendantForIndex(u.startIndex + m.index + m[0].length - 1);
      while (n && n.type !== 'call' && !n.equals(u)) n = n.parent;
      if (n?.type === 'call' && n.parent?.type === 'expression_statement' && m[1] !== 'self')
        used.push(key(m[1]!, m.index + m[0].indexOf(m[1]!)));
    }
  }
  const annotated: [string, string][] = [];
  if (text.includes(':')) for (const m of text.matchAll(ANNOTATED)) annotated.push([key(m[1]!, m.index), m[2]!]);
  const bindings: Binding[] = [];
  for (const m of text.matchAll(BINDING)) {
    const [, t, callee, arg] = m;
    const dot = callee!.lastIndexOf('.');
    const container = /(Sequential|ModuleList|ModuleDict)$/.test(callee!);
    bindings.push({
      target: key(t!, m.index),
      callee: callee!,
      ...(arg ? { arg: key(arg.trim(), m.index) } : {}),
      ...(dot > 0 ? { object: key(callee!.slice(0, dot), m.index) } : {}),
      built: container ? [...callArgs(text, m.index).matchAll(/((?:nn\.)?[A-Z]\w*)\s*\(/g)].map((x) => x[1]!) : [],
    });
  }
  return { classes, used, annotated, bindings };
}

/** The text of the first call's arguments from `at` on (balanced parentheses, at most 20,000 characters). */
function callArgs(text: string, at: number): string {
  const open = text.indexOf('(', at);
  let depth = 0;
  for (let i = open; i >= 0 && i < text.length && i < open + 20000; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 40) depth++;
    else if (ch === 41 && --depth === 0) return text.slice(open, i + 1);
  }
  return text.slice(open, open + 20000);
}
