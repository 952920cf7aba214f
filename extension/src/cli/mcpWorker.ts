import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { isSnapshotError } from '../core/errors';
import { PythonParser } from '../core/lint/syntax/parser';
import { headroomTools } from '../core/tools/registry';
import { checkPathArgs, underRoots } from '../core/tools/roots';
import type { Roots } from '../core/tools/roots';
import { ToolInputError } from '../core/tools/types';
import type { ToolDef } from '../core/tools/types';
import { wasmDir } from './lint';

/** What the server asks a tool worker: one call at a time. */
export interface CallMessage {
  type: 'call';
  id: number;
  name: string;
  args: Record<string, unknown>;
  roots: Roots;
}
export type ToWorker = CallMessage;

/** What a worker answers: the tool's text, or the reason it could not answer (a tool error). */
export type FromWorker = { type: 'answer'; id: number; text: string } | { type: 'refused'; id: number; text: string };

/** workerData of a tool worker: the CLI bundle is started again with it (see mcpPool.ts). */
export const WORKER_TAG = { headroom: 'mcp-tool-worker' } as const;

export function isToolWorker(): boolean {
  return !isMainThread && (workerData as { headroom?: unknown } | null)?.headroom === WORKER_TAG.headroom;
}

/** One call: the tool's text, its arguments' files checked against the roots first. */
async function answer(tools: readonly ToolDef[], m: CallMessage): Promise<FromWorker> {
  const refused = (text: string): FromWorker => ({ type: 'refused', id: m.id, text });
  const tool = tools.find((t) => t.name === m.name);
  if (!tool) return refused(`no tool named ${m.name}; the tools are ${tools.map((t) => t.name).join(', ')}`);
  try {
    const files = underRoots(m.roots);
    checkPathArgs(tool, m.args, files);
    return { type: 'answer', id: m.id, text: await tool.run(m.args, files) };
  } catch (e) {
    if (e instanceof ToolInputError || isSnapshotError(e)) return refused((e as Error).message);
    return refused(`${tool.name} failed: ${(e as Error).name}: ${(e as Error).message}`);
  }
}

/** The worker's side: answers calls until the server ends it (the parser and the snapshot cache stay warm between calls). */
export function serveToolCalls(): number {
  const port = parentPort!;
  let parser: Promise<PythonParser> | undefined;
  const tools = headroomTools(() => (parser ??= PythonParser.load(wasmDir())));
  port.on('message', (m: ToWorker) => {
    if (m.type === 'call') void answer(tools, m).then((r) => port.postMessage(r));
  });
  return 0;
}
