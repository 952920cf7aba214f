import type { Node } from '@vscode/tree-sitter-wasm';

/**
 * Local names bound by imports, to their qualified names: `import torch.nn.functional as F` binds
 * F → torch.nn.functional; `from torch.utils.checkpoint import checkpoint as ckpt` binds ckpt →
 * torch.utils.checkpoint.checkpoint; `import torch.cuda` binds torch → torch. Every import in the
 * file counts, wherever it stands (function-local imports included).
 */
export function importBindings(root: Node): Map<string, string> {
  const out = new Map<string, string>();
  for (const st of importStatements(root)) {
    if (st.type === 'import_statement') {
      for (const n of st.childrenForFieldName('name')) {
        if (!n) continue;
        if (n.type === 'aliased_import') {
          const full = n.childForFieldName('name')?.text;
          const alias = n.childForFieldName('alias')?.text;
          if (full && alias) out.set(alias, full);
        } else out.set(n.text.split('.')[0]!, n.text.split('.')[0]!);
      }
    } else {
      const mod = st.childForFieldName('module_name')?.text;
      if (!mod || mod.startsWith('.')) continue;
      for (const n of st.childrenForFieldName('name')) {
        if (!n) continue;
        if (n.type === 'aliased_import') {
          const name = n.childForFieldName('name')?.text;
          const alias = n.childForFieldName('alias')?.text;
          if (name && alias) out.set(alias, `${mod}.${name}`);
        } else out.set(n.text, `${mod}.${n.text}`);
      }
    }
  }
  return out;
}

/**
 * The import statements, found from the text (a keyword search, then the node there) rather than by
 * walking every node: on a 5,000-line file that is the difference between 0.5 and 17 ms.
 */
function importStatements(root: Node): Node[] {
  const text = root.text;
  const out: Node[] = [];
  const seen = new Set<number>();
  for (const m of text.matchAll(/^[ \t]*(?:from[ \t]+[\w.]+[ \t]+)?import[ \t(\\]/gm)) {
    let n: Node | null = root.descendantForIndex(m.index + m[0].search(/\S/));
    while (n && n.type !== 'import_statement' && n.type !== 'import_from_statement' && n.type !== 'module') n = n.parent;
    if (n && n.type !== 'module' && !seen.has(n.startIndex)) {
      seen.add(n.startIndex);
      out.push(n);
    }
  }
  return out;
}

/** The qualified name an expression spells (`F.cross_entropy` → torch.nn.functional.cross_entropy), if rooted in an import. */
export function qualifier(bindings: Map<string, string>): (n: Node | null) => string | undefined {
  const q = (n: Node | null): string | undefined => {
    if (!n) return undefined;
    if (n.type === 'identifier') return bindings.get(n.text);
    if (n.type === 'attribute') {
      const base = q(n.childForFieldName('object'));
      const attr = n.childForFieldName('attribute')?.text;
      return base && attr ? `${base}.${attr}` : undefined;
    }
    return undefined;
  };
  return q;
}
