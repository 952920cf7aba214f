import { AllocConfError } from '../allocator/confString';
import type { Limit } from '../allocator/limit';
import { whatif, whatifContext } from '../allocator/whatif';
import { whatifText } from '../allocator/whatifText';
import { ScaleAskError, scaleReport } from '../scale/report';
import type { ScaleQuestion } from '../scale/report';
import { parseCallSite } from '../scale/checkpoint';
import { predictCheckpoint } from '../scale/checkpointPredict';
import { checkpointText, scaleText } from '../scale/text';
import { DEVICE_PROP, int, num, openSource, PAGE_PROP, PATH_PROP, str } from './input';
import { paged } from './page';
import { ToolInputError } from './types';
import type { ToolDef } from './types';

const GiB = 2 ** 30;

/** "What would happen": another allocator setting, batch or sequence length, or the largest batch that fits, predicted from a recorded run. */
export const whatifTool: ToolDef = {
  name: 'headroom_whatif',
  title: 'Predict a PyTorch run under another setting or batch',
  description:
    'Predicts, from a recorded PyTorch CUDA memory snapshot or Headroom run folder, what the same run would do under another PYTORCH_CUDA_ALLOC_CONF (alloc_conf), at another batch (batch_scale) or sequence length (seq_scale), with a module’s calls checkpointed (checkpoint), or the largest batch that fits (max_batch): requested and reserved peaks, OOM or not, and what the prediction assumed. Ask one question per call.',
  inputSchema: {
    type: 'object',
    properties: {
      path: PATH_PROP,
      device: DEVICE_PROP,
      alloc_conf: { type: 'string', description: 'A PYTORCH_CUDA_ALLOC_CONF to predict, e.g. expandable_segments:True' },
      batch_scale: { type: 'number', description: 'The batch as a multiple of the recorded one, e.g. 2' },
      seq_scale: { type: 'number', description: 'The sequence length as a multiple of the recorded one' },
      max_batch: { type: 'boolean', description: 'The largest batch whose predicted run fits the limit less 5 %' },
      checkpoint: { type: 'string', description: 'FILE:LINE of a line that calls a module (x = block(x)): its calls checkpointed' },
      recorded_batch: { type: 'integer', description: 'The recorded batch size, to answer in whole batches', minimum: 1 },
      device_gib: {
        type: 'number',
        description: 'The memory PyTorch can have on the device, in GiB (default: what the recorded OOM shows)',
      },
      cap_gib: { type: 'number', description: 'A per-process cap in GiB instead' },
      page: PAGE_PROP,
    },
    required: ['path'],
    additionalProperties: false,
  },
  paths: ['path'],
  async run(args, files) {
    const conf = args.alloc_conf;
    if (conf !== undefined && (typeof conf !== 'string' || !conf || conf.length > 400))
      throw new ToolInputError('"alloc_conf" must be a PYTORCH_CUDA_ALLOC_CONF string');
    const scale = num(args, 'batch_scale');
    const seq = num(args, 'seq_scale');
    if (args.max_batch !== undefined && typeof args.max_batch !== 'boolean') throw new ToolInputError('"max_batch" must be true or false');
    const ckpt =
      args.checkpoint === undefined ? undefined : typeof args.checkpoint === 'string' ? parseCallSite(args.checkpoint) : undefined;
    if (args.checkpoint !== undefined && !ckpt) throw new ToolInputError('"checkpoint" must be FILE:LINE');
    const asked = [conf !== undefined, scale !== undefined, seq !== undefined, args.max_batch === true, ckpt !== undefined].filter(
      Boolean,
    ).length;
    if (asked !== 1) throw new ToolInputError('ask one question: alloc_conf, batch_scale, seq_scale, max_batch or checkpoint');
    const [device, cap] = [num(args, 'device_gib'), num(args, 'cap_gib')];
    if (device && cap) throw new ToolInputError('give device_gib or cap_gib, not both');
    const given: Limit | undefined = cap
      ? { bytes: Math.round(cap * GiB), cap: true }
      : device
        ? { bytes: Math.round(device * GiB), cap: false }
        : undefined;
    const o = await openSource(str(args, 'path')!, int(args, 'device', 0), files);
    let text: string;
    try {
      if (typeof conf === 'string') text = whatifText(whatif(o.snapshot, o.analysis, [conf], given), 'cap_gib');
      else if (ckpt) {
        const a = o.analysis;
        text = checkpointText(
          predictCheckpoint(o.snapshot, a, ckpt, whatifContext(o.snapshot, a, given).limit ?? undefined),
          a.replay.peak.requestedBytes,
          a.replay.reservedPeak.bytes,
        );
      } else {
        const q: ScaleQuestion = scale
          ? { kind: 'scale', scale, axis: 'batch' }
          : seq
            ? { kind: 'scale', scale: seq, axis: 'seq' }
            : { kind: 'max', margin: 0.05 };
        text = scaleText(scaleReport(o.snapshot, o.analysis, q, given, int(args, 'recorded_batch', 1)));
      }
    } catch (e) {
      if (e instanceof AllocConfError || e instanceof ScaleAskError || e instanceof RangeError) throw new ToolInputError(e.message);
      throw e;
    }
    return paged([o.file, ...text.trimEnd().split('\n')], int(args, 'page', 1));
  },
};
