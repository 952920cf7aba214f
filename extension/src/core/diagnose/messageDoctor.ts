import { formatBytes as b } from '../../shared/format';
import type { OomMessage } from '../oom/types';
import { messageFacts } from './messageFacts';
import { demandFromMessage } from './messageDemand';
import { nativeExpandable, raiseCapFrom } from './messageRemedies';
import { OUTSIDE_SHARE, outsideVerdict, pct, result } from './messageVerdict';
import { NO_CONTEXT } from './oomContext';
import type { OomContext } from './oomContext';
import type { OomDiagnosis } from './oom';
import { expandable, maxSplit } from './remedies';

/**
 * The OOM doctor on a message alone, by proportions and consistency, in this order:
 *  - unknown: no allocator figures, or figures that contradict an allocator OOM;
 *  - demand: a request bigger than the device, whatever else;
 *  - fragmentation under a cap: the slack could serve the request within the limit (the GPU
 *    captures: expandable_segments made such a run pass under the same cap);
 *  - cap: a limit below the device refused a request the device had room for;
 *  - non-pytorch: memory outside this process's PyTorch, beyond a context, is a quarter of the device;
 *  - fragmentation: the slack PyTorch holds could have served the request and is a real share;
 *  - demand: otherwise.
 */
const GiB = 2 ** 30;
const MiB = 2 ** 20;
/** Slack under this share of the device cannot be what stopped a job for long. */
const SLACK_SHARE = 0.05;
/** What the driver needs beyond a request: "free" above request + this is a contradiction. */
const room = (total: number) => Math.max(64 * MiB, total / 100);

const NO_FIGURES: Partial<Record<OomMessage['format'], string>> = {
  thc: 'PyTorch ≤ 0.4 printed no figures ("cuda runtime error (2)")',
  'cuda-error':
    '"CUDA error: out of memory" comes from a kernel, the CUDA context or a library (cuBLAS, cuDNN, NCCL), not from PyTorch’s allocator, and prints no figures; CUDA_LAUNCH_BLOCKING=1 makes the traceback point at the call that failed',
  cublas: 'cuBLAS could not allocate its workspace; the message prints no figures',
};

export function diagnoseMessage(m: OomMessage, c: OomContext = NO_CONTEXT): OomDiagnosis {
  const f = messageFacts(m);
  const none = NO_FIGURES[m.format];
  if (none) return result(m, f, 'unknown', `${none}. The cause cannot be read from it.`, []);
  if (m.format === 'absurd')
    return result(
      m,
      f,
      'demand',
      'PyTorch refused a request of more than 1 EB: no device has that, so a size is wrong.',
      demandFromMessage(f, c, true),
    );
  const { request: q, total: t, free } = f;
  if (t === undefined || free === undefined)
    return result(
      m,
      f,
      'unknown',
      `The message was cut short before ${t === undefined ? 'the device’s total' : 'the device’s free memory'}: the cause cannot be read from what is left.`,
      [],
    );
  const capNote = f.cap !== undefined ? ` A ${b(f.cap)} per-process limit was set.` : '';
  const others = outsideVerdict(m, f, t, capNote);
  if (q === undefined)
    return (
      others ??
      result(
        m,
        f,
        'unknown',
        'The message was pasted without its request ("Tried to allocate …"): what failed cannot be weighed against the device.',
        [],
      )
    );
  if (q > t)
    return result(
      m,
      f,
      'demand',
      `The ${b(q)} request alone is larger than the whole ${b(t)} device: no setting can serve it.`,
      demandFromMessage(f, c, false),
    );
  const fragmented = (limit: number) => f.slack !== undefined && f.slack >= q && f.slack >= limit * SLACK_SHARE;
  const pieces = (limit: number, of: string) =>
    result(
      m,
      f,
      'fragmentation',
      `PyTorch holds ${b(f.slack!)} reserved but unallocated (${pct(f.slack!, limit)} of ${of}), more than the ${b(q)} request, yet no free block was large enough: the free memory is in pieces.${capNote}`,
      c.expandable || c.windows ? [maxSplit(q)] : [expandable, maxSplit(q)],
    );
  if (f.cap !== undefined && fragmented(f.cap)) return pieces(f.cap, 'the limit');
  if (f.cap !== undefined && free >= q)
    return result(
      m,
      f,
      'cap',
      `The device had ${b(free)} free for a ${b(q)} request, but this process may use only ${b(f.cap)} (a per-process memory fraction)${f.reserved !== undefined ? ` and PyTorch already reserved ${b(f.reserved)}` : ''}: the limit refused it.`,
      [raiseCapFrom(f)],
    );
  if (f.cap === undefined && free >= q + room(t))
    return result(
      m,
      f,
      'unknown',
      `The device reported ${b(free)} free, more than the ${b(q)} request, and no limit is printed: the allocation should not have failed. A per-process memory fraction that this PyTorch version does not print, another process freeing memory in between, or a message from another device than the one that failed would explain it.`,
      [],
    );
  if (others) return others;
  if (fragmented(t)) return pieces(t, 'the device');
  if (f.unaccounted !== undefined && f.unaccounted - GiB >= t * OUTSIDE_SHARE)
    return result(
      m,
      f,
      'fragmentation',
      `${b(f.unaccounted)} of the ${b(t)} device (${pct(f.unaccounted, t)}) is neither free nor in live tensors: under cudaMallocAsync that is the pool keeping freed memory it cannot hand out for this ${b(q)} request (or other programs: this backend's message cannot tell).${capNote}`,
      [nativeExpandable],
    );
  const held =
    f.reserved === undefined && f.allocated !== undefined
      ? `${b(f.allocated)} of the ${b(t)} device (${pct(f.allocated, t)}) is in live tensors`
      : f.reserved !== undefined
        ? `PyTorch reserved ${b(f.reserved)} of the ${b(t)} device (${pct(f.reserved, t)})${f.allocated !== undefined ? `, ${b(f.allocated)} of it in live tensors` : ''}`
        : `the ${b(t)} device is full`;
  const slack =
    f.slack !== undefined && f.slack >= q ? ` The ${b(f.slack)} reserved but unallocated is too small a share to be the cause.` : '';
  return result(
    m,
    f,
    'demand',
    `The live tensors need more than the device has: ${held}, ${b(free)} was free and the request is ${b(q)}.${slack}${capNote}`,
    demandFromMessage(f, c, false),
  );
}
