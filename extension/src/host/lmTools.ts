import * as vscode from 'vscode';
import type { PythonParser } from '../core/lint/syntax/parser';
import { headroomTools } from '../core/tools/registry';
import { ToolInputError } from '../core/tools/types';
import type { ToolDef } from '../core/tools/types';
import type { MemoryView } from './memory/view';

/**
 * Headroom's assistant tools for agent-mode chat (package.json's languageModelTools), over the same
 * core implementations as `headroom mcp`. A tool called without a `path` reads the snapshot the
 * editor shows. They read files and run nothing, so they ask for no confirmation.
 */
export function registerLmTools(view: MemoryView, parser: () => Promise<PythonParser>): vscode.Disposable {
  const lm = (vscode as { lm?: typeof vscode.lm }).lm;
  if (!lm?.registerTool) return new vscode.Disposable(() => undefined);
  const subs = headroomTools(parser).map((def) => lm.registerTool<Record<string, unknown>>(def.name, adapter(def, view)));
  return vscode.Disposable.from(...subs);
}

function adapter(def: ToolDef, view: MemoryView): vscode.LanguageModelTool<Record<string, unknown>> {
  return {
    prepareInvocation: () => ({ invocationMessage: vscode.l10n.t('Reading memory figures ({0})', def.title) }),
    async invoke(options) {
      const input = { ...(options.input ?? {}) };
      // No snapshot named: the one the editor shows (for the lint, as the run that gives evidence).
      if ('path' in def.inputSchema.properties && input.path === undefined && view.current) input.path = view.current.path;
      if ('run' in def.inputSchema.properties && input.run === undefined && view.current) input.run = view.current.path;
      try {
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(await def.run(input))]);
      } catch (e) {
        // The model reads the reason and can ask again; the chat shows the tool failed.
        if (e instanceof ToolInputError) throw new Error(e.message);
        throw e;
      }
    },
  };
}
