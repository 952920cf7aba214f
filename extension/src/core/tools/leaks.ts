import { describeLeak, detectLeaks } from '../diagnose/leaks';
import { DEVICE_PROP, int, openSource, PAGE_PROP, PATH_PROP, str } from './input';
import { paged } from './page';
import type { ToolDef } from './types';

/** The runtime leak verdict: growth per iteration, and the lines that create and keep it. */
export const leaksTool: ToolDef = {
  name: 'headroom_leaks',
  title: 'Find GPU memory leaks in a PyTorch run',
  description:
    'Says whether live GPU memory grows from iteration to iteration in a PyTorch memory snapshot or Headroom run folder, by how much per iteration, and which source lines create and keep the leaked tensors (file:line).',
  inputSchema: {
    type: 'object',
    properties: { path: PATH_PROP, device: DEVICE_PROP, page: PAGE_PROP },
    required: ['path'],
    additionalProperties: false,
  },
  paths: ['path'],
  async run(args, files) {
    const o = await openSource(str(args, 'path')!, int(args, 'device', 0), files);
    const leak = detectLeaks(o.snapshot, o.analysis);
    return paged(
      [`${o.file}, device ${o.analysis.device}: ${leak.leaking ? 'leaking' : 'no leak'}`, ...describeLeak(leak)],
      int(args, 'page', 1),
    );
  },
};
