import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Language, Parser } from '@vscode/tree-sitter-wasm';
import type { Tree } from '@vscode/tree-sitter-wasm';
import { setWasmModule } from './wasmTables';

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
    const tree = this.parser.parse(text, previous ?? null);
    if (!tree) throw new Error('the Python parser gave no tree');
    return tree;
  }
}
