import type { InputSchema, ToolDef } from './types';

/**
 * A tool's arguments as the editor declares them (package.json's languageModelTools): a snapshot
 * `path` may be left out there, and then means the snapshot shown in the editor.
 */
export function editorSchema(t: Pick<ToolDef, 'inputSchema'>): InputSchema {
  const s = t.inputSchema;
  const props = { ...s.properties };
  if (props.path) props.path = { ...props.path, description: `${props.path.description}; default: the snapshot shown in the editor` };
  if (props.run) props.run = { ...props.run, description: `${props.run.description}; default: the snapshot shown in the editor` };
  return { ...s, properties: props, required: s.required.filter((r) => r !== 'path') };
}
