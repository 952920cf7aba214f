import { Parser } from '@vscode/tree-sitter-wasm';
import type { Language, Tree } from '@vscode/tree-sitter-wasm';
import { firstDifference } from './mirrorCheck';
import { Mirror, mirrorRoot } from './mirrorTree';
import type { MirrorNode } from './mirrorTree';
import { languageTables, wasmHeap } from './wasmTables';
import type { LanguageTables } from './wasmTables';
import type { SyntaxNode } from './syntaxNode';

const roots = new WeakMap<Tree, SyntaxNode>();
let mirrorOn = true;

/** Read trees through the parser's API instead (tests and the bench compare the two). */
export function setMirrorReads(on: boolean): void {
  mirrorOn = on;
}

const trusted = new WeakMap<Language, boolean>();

/** Python that has every kind of node the check below must see read alike: aliases, hidden rules, fields, extras, errors, a missing token. */
const SAMPLE = [
  '# comment\nfrom __future__ import annotations\nimport a.b as c, d\nfrom .e import (f as g, h)\nfrom i import *',
  '@dec(1, k=2)\nclass C(B, metaclass=M):\n    """doc"""\n    x: int = 3\n    async def m(self, a, /, b=1, *c, d: "T" = 2, **e) -> None:',
  '        global q\n        async with s() as (t, u), v: await w\n        return [y async for y in z if y] or {k: v for k, v in q.items()} or (p for p in r)',
  'def f(*, a):\n    try:\n        yield from g\n    except* (E, F) as e:\n        raise X from e\n    else:\n        pass\n    finally:\n        del a[1:2:3], b.c',
  'match p:\n    case [1, *rest] | {"k": _} if rest:\n        print(f"{x!r:>{w}} {y=}", \'a\' \'b\', r"\\d", b"\\x00")\n    case Point(x=0) as pt:\n        lambda a, *b, c=1: (a := c)',
  'while not done:\n    x += 1; y @= z ** -w if w else ~v\n    assert x, "m"\nelse:\n    for i, (j, k) in enumerate(l): continue',
  'type A[T] = list[T]\nx = [1, 2,\nprint x\ndef broken(:\n    return )\ny = "é😀" + \'\\u00e9\'  # ünïcode\r\nz = {**a, *b}',
].join('\n');

/** Whether this grammar's trees read the same from memory as through the parser's API (once per grammar). */
function mirrorTrusted(language: Language, t: LanguageTables): boolean {
  let ok = trusted.get(language);
  if (ok === undefined) {
    const parser = new Parser();
    parser.setLanguage(language);
    const sample = parser.parse(SAMPLE);
    try {
      const heap = wasmHeap();
      // The fields each node's rule can give (all 32 on every node would cost 100 ms once per process).
      ok =
        !!sample &&
        !!heap &&
        firstDifference(
          mirrorRoot(sample, SAMPLE, t, heap),
          sample.rootNode as unknown as SyntaxNode,
          (n) => (n as MirrorNode).fieldNames(),
          3,
        ) === undefined;
    } catch {
      ok = false;
    } finally {
      sample?.delete();
      parser.delete();
    }
    trusted.set(language, ok);
  }
  return ok;
}

/** Lets go of the nodes read from `tree` (a later rootOf reads afresh). */
export function forgetRoot(tree: Tree): void {
  roots.delete(tree);
}

/**
 * The root of `tree` (parsed from `text`) as the linter reads it: a MirrorNode when the parser's
 * memory reads the same as its API on a sample, else web-tree-sitter's own node. One root per tree,
 * so nodes keep their identity across calls; don't use it after the tree is edited.
 */
export function rootOf(tree: Tree, text: string): SyntaxNode {
  let root = roots.get(tree);
  if (!root) {
    const t = languageTables(tree.language);
    const heap = mirrorOn && t && mirrorTrusted(tree.language, t) ? wasmHeap() : undefined;
    root = t && heap ? mirrorRoot(tree, text, t, heap) : (tree.rootNode as unknown as SyntaxNode);
    roots.set(tree, root);
  } else if (root.tree instanceof Mirror) root.tree.refresh();
  return root;
}
