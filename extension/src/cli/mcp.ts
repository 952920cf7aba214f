import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { headroomTools } from '../core/tools/registry';
import { plain, plainLines } from '../shared/text';
import { UsageError } from './args';
import type { Io } from './io';
import { limitsFromEnv, ToolPool } from './mcpPool';
import type { Outcome } from './mcpPool';
import { ClientRoots } from './mcpRoots';
import { isToolWorker, serveToolCalls } from './mcpWorker';
import { VERSION } from './version';

export const MCP_USAGE = `usage: headroom mcp

  A Model Context Protocol server on stdin/stdout for assistants (Claude Code, Cursor, Copilot CLI…):
  the tools headroom_summary, headroom_explain_oom, headroom_leaks, headroom_lint and
  headroom_compare read the snapshots, run folders and files they are given and answer compact text
  (about 500 tokens a page). They run nothing. Other clients take the same command:
  {"mcpServers": {"headroom": {"command": "headroom", "args": ["mcp"]}}}.
  Example: claude mcp add headroom -- headroom mcp

  The tools read files only under the client's roots (MCP roots/list); a client that declares no
  roots gets the server's working directory as the one root. Each call runs in a worker of its own,
  stopped past its heap (HEADROOM_MCP_HEAP_MB, default 1024) or its time (HEADROOM_MCP_DEADLINE_MS,
  default 60000); the server answers other requests meanwhile.`;

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

/** The one way out for every answer: tool text and errors alike are escaped here, so no tool can forget. */
function result(o: Outcome): ToolResult {
  return o.ok
    ? { content: [{ type: 'text', text: plainLines(o.text) }] }
    : { content: [{ type: 'text', text: plain(o.text) }], isError: true };
}

export async function mcpCommand(argv: readonly string[], _io: Io): Promise<number> {
  // The CLI bundle started again as a tool worker (mcpPool.ts) serves calls, not stdio.
  if (isToolWorker()) return serveToolCalls();
  if (argv.length) throw new UsageError(MCP_USAGE);
  // Their names and schemas only: the calls run in the pool's workers.
  const tools = headroomTools(() => Promise.reject(new Error('the tools run in workers')));
  const pool = new ToolPool(__filename, limitsFromEnv(process.env));
  const server = new Server({ name: 'headroom', version: VERSION }, { capabilities: { tools: {} } });
  const roots = new ClientRoots(server, process.cwd());
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: { title: t.title, readOnlyHint: true, openWorldHint: false },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const { name } = req.params;
    if (!tools.some((t) => t.name === name))
      return result({ ok: false, text: `no tool named ${name}; the tools are ${tools.map((t) => t.name).join(', ')}` });
    let outcome: Outcome;
    try {
      outcome = await pool.call(name, (req.params.arguments ?? {}) as Record<string, unknown>, await roots.current());
    } catch (e) {
      outcome = { ok: false, text: (e as Error).message };
    }
    return result(outcome);
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await pool.close();
  return 0;
}
