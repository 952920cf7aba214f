import { plain } from '../../shared/text';
import { formatBytes } from '../../shared/format';
import type { ActivationHolder, BatchEstimate } from './need';

// The OOM doctor's remedies: what each changes and what to expect, from the figures at hand.

export interface Remedy {
  id:
    | 'expandable-segments'
    | 'max-split-size'
    | 'checkpoint'
    | 'autocast'
    | 'smaller-batch'
    | 'zero-grad-none'
    | 'memory-cap'
    | 'reproduce-cap'
    | 'free-device'
    | 'release-non-pytorch'
    | 'shorter-inputs'
    | 'smaller-model'
    | 'fix-size'
    | 'record';
  title: string;
  /** What it changes, concretely. */
  change: string;
  /** What to expect, from the figures. */
  effect: string;
  /** PYTORCH_CUDA_ALLOC_CONF entries a re-run would set. */
  allocConf?: Record<string, string>;
  /** A per-process cap (GiB) a re-run would set: the device that ran out, on a bigger one. */
  capGib?: number;
  /** The line to change, when the remedy names one. */
  line?: { file: string; line: number };
}

export const MiB = 2 ** 20;
export const expandable: Remedy = {
  id: 'expandable-segments',
  title: 'Re-run with expandable_segments:True',
  change:
    'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (segments grow in place instead of new ones being carved, so freed pieces join up)',
  effect: 'the free pieces can serve the request',
  allocConf: { expandable_segments: 'True' },
};

/**
 * max_split_size_mb:N keeps blocks above N MiB whole: requests up to N still split cached blocks,
 * bigger ones no longer find their room cut up by them. From the segment map: N is the power of two
 * just above the blocks that sit between the holes (they keep their way of being served), below the
 * request; from a message alone, half the request. PyTorch wants N > 20.
 */
export function maxSplit(requestBytes: number, between: number[] = []): Remedy {
  const below = between.filter((b) => b < requestBytes);
  // A loop, not Math.max(...below): a spread throws past ~100,000 blocks (issue 39).
  const most = below.reduce((m, b) => Math.max(m, b), 0);
  let n = 32;
  while (below.length && n * MiB < most) n *= 2;
  if (!below.length || n * MiB >= requestBytes) n = Math.max(21, Math.floor(requestBytes / MiB / 2));
  const kept = below.length ? `the ${formatBytes(most)} blocks between the holes still split as before; ` : '';
  return {
    id: 'max-split-size',
    title: `Re-run with max_split_size_mb:${n}`,
    change: `PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:${n} (cached blocks above ${n} MiB are not split for smaller requests)`,
    effect: `${kept}a ${formatBytes(requestBytes)} request finds whole blocks instead of split remainders`,
    allocConf: { max_split_size_mb: String(n) },
  };
}

export const raiseCap = (free: number): Remedy => ({
  id: 'memory-cap',
  title: 'Raise or remove the memory cap',
  change: 'the per-process limit (torch.cuda.set_per_process_memory_fraction, or the cap of a Headroom run) set higher, or not at all',
  effect: `${formatBytes(free)} of the device becomes usable`,
});

export const freeDevice = (outside: number, others: { pid: number; used: number | null }[] = []): Remedy => ({
  id: 'free-device',
  title: 'Free the device',
  change: `stop the other processes on this GPU${others.length ? ` (${others.map((p) => `pid ${p.pid}`).join(', ')})` : ''}, or release other frameworks’ memory (TensorFlow, JAX, CuPy pools) in this one`,
  effect: `up to ${formatBytes(outside)} for PyTorch`,
});

/** What the demand remedies are computed from (the snapshot's figures; a message gives none). */
export interface DemandFacts {
  categories: { category: string; bytes: number }[];
  topLines: { file: string; line: number; name: string; bytes: number }[];
  batch?: BatchEstimate;
  /** The line whose module calls made the most of the activations live at the OOM. */
  holder?: ActivationHolder;
  /** The memory of the device that ran out, when known. */
  deviceTotal?: number;
}

export function demandRemedies(tried: number, { categories, topLines, batch, holder, deviceTotal }: DemandFacts): Remedy[] {
  // An OOM in a forward has no backward after it to show which tensors were saved for it: what the
  // failing iteration made in module calls before the request stands for its activations.
  const act = Math.max(categories.find((c) => c.category === 'activations')?.bytes ?? 0, batch && holder ? batch.scaledBytes - tried : 0);
  const grads = categories.find((c) => c.category === 'gradients')?.bytes ?? 0;
  const out: Remedy[] = [];
  if (act > 0) {
    const top = holder ?? topLines[0];
    out.push({
      id: 'checkpoint',
      title: 'Checkpoint the layers holding the activations',
      change: `wrap the blocks whose forward saves activations${top ? ` (the top holder: ${plain(top.file)}:${top.line})` : ''} in torch.utils.checkpoint.checkpoint(..., use_reentrant=False)`,
      // Checkpointed blocks keep their inputs and recompute one block at a time in backward.
      effect: holder
        ? `the module calls at ${holder.file}:${holder.line} hold ${formatBytes(holder.bytes)} of activations at the OOM in ${holder.blocks} tensors; checkpointing them is expected to free ≈${formatBytes(holder.bytes - holder.largest)} (all but the largest, ${formatBytes(holder.largest)}, recomputed in backward)`
        : `most of the ${formatBytes(act)} of activations live at the OOM is recomputed in backward instead of kept`,
      ...(top ? { line: { file: top.file, line: top.line } } : {}),
    });
    out.push({
      id: 'autocast',
      title: 'Run the forward under autocast',
      change: 'torch.autocast("cuda", dtype=torch.bfloat16) around the forward pass',
      effect: `activations in 16 bits: about half of ${formatBytes(act)}`,
    });
  }
  const pct = batch ? Math.floor(batch.fraction * 100) : 0;
  out.push(
    batch && pct > 0 && pct < 100
      ? {
          id: 'smaller-batch',
          title: `Reduce the batch size below ${pct}%`,
          change: `a batch under ${pct}% of the current one (or micro-batches with gradient accumulation): need ≈ ${formatBytes(batch.fixedBytes)} fixed + ${formatBytes(batch.scaledBytes)} × new/current batch up to the OOM`,
          effect: `at ${pct}% that part fits in the ${formatBytes(batch.availableBytes)} PyTorch could have; the rest of the iteration needs more, so go lower`,
        }
      : {
          id: 'smaller-batch',
          title: 'Reduce the batch size',
          change: 'a smaller batch (or gradient accumulation over micro-batches)',
          effect: `activations scale with the batch; the ${formatBytes(tried)} request shrinks with it`,
        },
  );
  if (grads > 0)
    out.push({
      id: 'zero-grad-none',
      title: 'zero_grad(set_to_none=True)',
      change: 'optimizer.zero_grad(set_to_none=True) (the default since torch 2.0)',
      effect: `the ${formatBytes(grads)} of gradients is freed between steps instead of zeroed in place`,
    });
  const cap = deviceTotal !== undefined ? Math.floor((deviceTotal / 2 ** 30) * 100) / 100 : undefined;
  out.push(
    cap
      ? {
          id: 'reproduce-cap',
          title: `Reproduce under a ${cap} GiB cap`,
          change: `a per-process memory cap of ${cap} GiB, the device that ran out, for one Headroom run`,
          effect: 'the same OOM on any bigger GPU, to try the fixes above where it is quick',
          capGib: cap,
        }
      : {
          id: 'reproduce-cap',
          title: 'Reproduce on a smaller GPU',
          change: 'a per-process memory cap, for one Headroom run, of the size of the GPU that ran out',
          effect: 'the same OOM on a bigger GPU, to try fixes quickly',
        },
  );
  return out;
}
