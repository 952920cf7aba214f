/**
 * Headroom's assistant tools: one implementation each, shared by the MCP server (`headroom mcp`)
 * and any other adapter. A tool takes JSON arguments from a stranger (a model) and answers compact
 * plain text: figures, `file:line` references, never raw pickle content.
 */
export type ToolName =
  | 'headroom_summary'
  | 'headroom_explain_oom'
  | 'headroom_leaks'
  | 'headroom_lint'
  | 'headroom_compare'
  | 'headroom_whatif';

/** A JSON Schema object for a tool's arguments (the MCP and VS Code tool formats both take it). */
export interface InputSchema {
  type: 'object';
  properties: Record<string, { type: 'string' | 'integer' | 'number' | 'boolean'; description: string; minimum?: number }>;
  required: string[];
  additionalProperties: false;
}

export interface ToolDef {
  name: ToolName;
  title: string;
  description: string;
  inputSchema: InputSchema;
  /** The arguments that name files or folders to read (a server checks them against its roots). */
  paths: readonly string[];
  /**
   * Runs nothing: reads the files named and answers. Throws ToolInputError for bad arguments.
   * `files` says which files may be read (default: any the user can).
   */
  run(args: Record<string, unknown>, files?: FileAccess): Promise<string>;
}

/** Which files a tool may read: the files its arguments lead to (a run folder's snapshot) are checked too. */
export interface FileAccess {
  /** Throws ToolInputError unless `path`, every link followed, may be read. */
  check(path: string): void;
}

/** Any file the user can read (the editor: its user names the files). */
export const ANY_FILE: FileAccess = { check: () => undefined };

/** Arguments the tool cannot use (missing, of the wrong type, a file that is not there). */
export class ToolInputError extends Error {
  override readonly name = 'ToolInputError';
}
