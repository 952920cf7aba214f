import { attributeAt } from '../analysis/attributeAt';
import { byModule, hasModuleScopes } from '../analysis/modules';
import { formatBytes } from '../../shared/format';
import { diffAttributions, differingModules, signedBytes } from '../source/diff';
import { openSource, PAGE_PROP, int, str } from './input';
import { paged } from './page';
import type { ToolDef } from './types';

const TOP = 15;

/** Two runs or snapshots at their peaks: the peak's change and the lines that changed most. */
export const compareTool: ToolDef = {
  name: 'headroom_compare',
  title: 'Compare two PyTorch memory snapshots or runs',
  description:
    'Compares two PyTorch memory snapshots or Headroom run folders at their peaks: the change of the peak (exact requested bytes), the source lines whose memory at the peak changed most (file:line), and the nn.Modules when both runs recorded them.',
  inputSchema: {
    type: 'object',
    properties: {
      before: { type: 'string', description: 'The first snapshot or run folder' },
      after: { type: 'string', description: 'The second snapshot or run folder' },
      page: PAGE_PROP,
    },
    required: ['before', 'after'],
    additionalProperties: false,
  },
  paths: ['before', 'after'],
  async run(args, files) {
    const side = async (key: string) => {
      const o = await openSource(str(args, key)!, undefined, files);
      return { o, peak: o.analysis.replay.peak, attr: attributeAt(o.snapshot, o.analysis, o.analysis.replay.peak) };
    };
    const before = await side('before');
    const after = await side('after');
    const d = diffAttributions(before.attr, after.attr);
    const delta = after.peak.requestedBytes - before.peak.requestedBytes;
    const lines = [
      `peak: ${formatBytes(before.peak.requestedBytes)} → ${formatBytes(after.peak.requestedBytes)} (${signedBytes(delta, formatBytes)}, ${before.peak.requestedBytes} B → ${after.peak.requestedBytes} B)`,
      'lines whose memory at the peak changed most (self bytes):',
      ...d.lines
        .slice(0, TOP)
        .map(
          (l) =>
            `  ${l.file}:${l.line} ${l.function}: ${formatBytes(l.beforeBytes)} → ${formatBytes(l.afterBytes)} (${signedBytes(l.deltaBytes, formatBytes)})`,
        ),
    ];
    if (d.lines.length > TOP) lines.push(`  … ${d.lines.length - TOP} more lines`);
    // Runs recorded with module scopes: the modules whose memory at the peak changed most.
    if (hasModuleScopes(before.o.snapshot) && hasModuleScopes(after.o.snapshot)) {
      const self = (x: typeof before) =>
        byModule(x.o.snapshot, x.o.analysis, x.peak.index).modules.map((m) => ({ path: m.path, bytes: m.selfBytes }));
      const changed = differingModules([self(before), self(after)], TOP);
      lines.push('modules whose memory at the peak changed most (self bytes):');
      for (const m of changed) {
        const [b, a] = [m.bytes[0] ?? 0, m.bytes[1] ?? 0];
        lines.push(`  ${m.path}: ${formatBytes(b)} → ${formatBytes(a)} (${signedBytes(a - b, formatBytes)})`);
      }
      if (!changed.length) lines.push('  none');
    }
    return paged(lines, int(args, 'page', 1));
  },
};
