import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { isSnapshotError } from '../core/errors';
import { PythonParser } from '../core/lint/syntax/parser';
import { plain } from '../shared/text';
import { headroomTools } from '../core/tools/registry';
import { ToolInputError } from '../core/tools/types';
import { UsageError } from './args';
import type { Io } from './io';
import { wasmDir } from './lint';
import { VERSION } from './version';

export const MCP_USAGE = `usage: headroom mcp

  A Model Context Protocol server on stdin/stdout for assistants (Claude Code, Cursor, Copilot CLI…):
  the tools headroom_summary, headroom_explain_oom, headroom_leaks, headroom_lint and
  headroom_compare read the snapshots, run folders and files they are given and answer compact text
  (about 500 tokens a page). They run nothing. Other clients take the same command:
  {"mcpServers": {"headroom": {"command": "headroom", "args": ["mcp"]}}}.
  Example: claude mcp add headroom -- headroom mcp`;

/** Answers one call: the tool's text, or its error as a tool error (the server itself goes on). */
async function call(
  tools: ReturnType<typeof headroomTools>,
  name: string,
  args: Record<string, unknown>,
): Promise<{ content: { type: 'text'; text: string }[]; isError?: boolean }> {
  const tool = tools.find((t) => t.name === name);
  const error = (text: string) => ({ content: [{ type: 'text' as const, text: plain(text) }], isError: true });
  if (!tool) return error(`no tool named ${name}; the tools are ${tools.map((t) => t.name).join(', ')}`);
  try {
    return { content: [{ type: 'text', text: await tool.run(args) }] };
  } catch (e) {
    if (e instanceof ToolInputError || isSnapshotError(e)) return error((e as Error).message);
    return error(`${tool.name} failed: ${(e as Error).name}: ${(e as Error).message}`);
  }
}

export async function mcpCommand(argv: readonly string[], _io: Io): Promise<number> {
  if (argv.length) throw new UsageError(MCP_USAGE);
  let parser: Promise<PythonParser> | undefined;
  const tools = headroomTools(() => (parser ??= PythonParser.load(wasmDir())));
  const server = new Server({ name: 'headroom', version: VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: { title: t.title, readOnlyHint: true, openWorldHint: false },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) =>
    call(tools, req.params.name, (req.params.arguments ?? {}) as Record<string, unknown>),
  );
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  return 0;
}
