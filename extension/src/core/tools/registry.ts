import type { PythonParser } from '../lint/syntax/parser';
import { compareTool } from './compare';
import { explainOomTool } from './explainOom';
import { leaksTool } from './leaks';
import { lintTool } from './lint';
import { summaryTool } from './summary';
import type { ToolDef } from './types';
import { whatifTool } from './whatif';

/** Every assistant tool, in the order they are listed. `parser` loads the lint's Python parser. */
export function headroomTools(parser: () => Promise<PythonParser>): ToolDef[] {
  return [summaryTool, explainOomTool, leaksTool, lintTool(parser), compareTool, whatifTool];
}
