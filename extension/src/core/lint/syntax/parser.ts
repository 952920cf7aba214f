import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Language, Parser } from '@vscode/tree-sitter-wasm';
import type { Tree } from '@vscode/tree-sitter-wasm';
import { setWasmModule } from './wasmTables';

const CHUNK = 256;

/**
 * Python syntax trees from tree-sitter (WebAssembly): fast, error-tolerant (a broken region becomes
 * an ERROR node, the rest of the file still parses) and incremental when given the previous tree.
 */
export class PythonParser {
  private constructor(private readonly parser: Parser) {}

  /** `wasmDir` holds tree-sitter.wasm and tree-sitter-python.wasm. */
  static async load(wasmDir: string): Promise<PythonParser> {
    // web-tree-sitter's first init makes this object its module; syntaxTree.ts reads trees through its memory views.
    const options = { locateFile: (file: string) => join(wasmDir, file) };
    await Parser.init(options);
    setWasmModule(options);
    const python = await Language.load(readFileSync(join(wasmDir, 'tree-sitter-python.wasm')));
    const parser = new Parser();
    parser.setLanguage(python);
    return new PythonParser(parser);
  }

  parse(text: string, previous?: Tree): Tree {
    // The text in small chunks: a re-parse reads it at a hundred places or so, and each read copies
    // its chunk into the parser's memory (a string input copies 5,119 characters per read: 15 % of
    // a re-parse after a keystroke on 5,000 lines). A full parse takes as long either way.
    const tree = this.parser.parse((i) => text.slice(i, i + CHUNK), previous ?? null);
    if (!tree) throw new Error('the Python parser gave no tree');
    // The API's nodes read their text through this (web-tree-sitter's own for a string): one read each, not one per chunk.
    if ('textCallback' in tree) (tree as { textCallback: unknown }).textCallback = (i: number) => text.slice(i);
    return tree;
  }
}
