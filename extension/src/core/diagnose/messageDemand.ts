import { formatBytes } from '../../shared/format';
import type { MessageFacts } from './messageFacts';
import { releaseNonPyTorch } from './messageRemedies';
import { selfExtra } from './messageVerdict';
import type { OomContext } from './oomContext';
import { expandable } from './remedies';
import type { Remedy } from './remedies';

/** The demand remedies from a message: what the request and the traceback around it allow. */
export function demandFromMessage(f: MessageFacts, c: OomContext, absurd: boolean): Remedy[] {
  const out: Remedy[] = [];
  const q = f.request ?? 0;
  const t = f.total ?? 0;
  // A request over twice the device is a size gone wrong: fewer samples or 16 bits cannot bring
  // it under the device.
  if (absurd || (t && q > 2 * t))
    out.push({
      id: 'fix-size',
      title: 'Check the tensor sizes',
      change:
        'print the shapes feeding the failing line: a size this large is usually a wrong dimension, a broadcast or an overflowed product',
      effect: absurd ? 'the request (over 1 EB) cannot be real' : `the ${formatBytes(q)} request is ${Math.round(q / t)}× the device`,
    });
  if (absurd || (t && q > 2 * t)) return out;
  const batch =
    c.server === 'vllm'
      ? 'fewer sequences at once (--max-num-seqs) or a shorter context (--max-model-len)'
      : 'a smaller batch (or gradient accumulation over micro-batches)';
  // One request a quarter of the device: it scales with the batch where the text shows one larger
  // than 1, else with the input's size.
  const batched = !c.loading && (c.batch ?? 0) > 1;
  if (t && q >= t / 4 && !batched)
    out.push({
      id: 'shorter-inputs',
      title: 'Shorten the inputs',
      change: 'shorter sequences, smaller images, or the work chunked (tiled VAE decoding, chunked attention, memory-efficient SDPA)',
      effect: `the ${formatBytes(q)} request (${Math.round((q / t) * 100)}% of the device) shrinks with the input size`,
    });
  // Only where the text shows a batch of more than one: a batch of one cannot shrink.
  if (batched)
    out.push({
      id: 'smaller-batch',
      title: 'Reduce the batch',
      change: `${batch} (the log shows a batch of ${c.batch})`,
      effect: 'activations and their request scale with the batch',
    });
  if (c.training && !c.loading)
    out.push({
      id: 'checkpoint',
      title: 'Checkpoint the activations',
      change:
        'torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False) around the repeated blocks (gradient_checkpointing_enable() for Hugging Face models)',
      effect: 'the blocks’ activations are recomputed in backward instead of kept',
    });
  // Without a model in sight (a bare script, a pasted message) 16 bits is a guess: not offered.
  if (c.training || c.inference || c.loading)
    out.push({
      id: 'autocast',
      title: 'Use 16-bit precision',
      change: c.training
        ? 'torch.autocast("cuda", dtype=torch.bfloat16) around the forward pass'
        : 'the model and its inputs in torch.float16 / bfloat16',
      effect: 'activations (and weights, where cast) take half the memory',
    });
  // The slack could serve this one request, though too small a share to be the cause.
  if (f.slack !== undefined && f.slack >= q && !c.expandable && !c.windows)
    out.push({
      ...expandable,
      effect: `the ${formatBytes(f.slack)} reserved but unallocated can serve this ${formatBytes(q)} request; the next may still fail`,
    });
  const self = selfExtra(f) ?? 0;
  if (self > 2 * 2 ** 30) out.push(releaseNonPyTorch(self));
  // vLLM preallocates its KV cache: its allocated share says nothing of the weights.
  if (c.loading || (f.allocated !== undefined && t && f.allocated >= t * 0.5 && !c.training && c.inference && c.server !== 'vllm'))
    out.push({
      id: 'smaller-model',
      title: 'Shrink or spread the model',
      change:
        'quantize it (8 or 4 bits), offload part of it (device_map="auto", CPU offload), or shard it over GPUs (FSDP, tensor parallelism)',
      effect: 'the weights take a fraction of the device',
    });
  return out;
}
