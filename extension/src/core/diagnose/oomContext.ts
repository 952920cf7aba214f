import type { OomMessage } from '../oom/types';

/**
 * What the text around a message says about the job that ran out: a traceback through backward
 * is training (checkpointing can help), one through generate or a sampler is inference (it cannot),
 * one ending in load_state_dict is the weights not fitting. Read from the text before the message
 * (its traceback) and a little after, never from the messages themselves (PyTorch's own hint names
 * expandable_segments whether or not it is on).
 */
export interface OomContext {
  training: boolean;
  inference: boolean;
  /** The traceback's last frames load or move the model. */
  loading: boolean;
  /** Windows paths or launchers: expandable segments are not supported there. */
  windows: boolean;
  /** The text sets these allocator options already. */
  expandable: boolean;
  maxSplit: boolean;
  /** Named servers whose own settings bound the batch. */
  server?: 'vllm';
  /** A batch size the text states (batch_size=8, --batch-size 8, bs=8). */
  batch?: number;
}

const BEFORE = 16 * 1024;
const TAIL = 1500;
const AFTER = 2048;
const TRAINING =
  /\.backward\(|\bbackward\b|_engine_run_backward|optimizer\.step|training_step|trainer\.(?:train|fit)\(|\btrain(?:_step|_epoch|_one_epoch|_loop)\b|accelerator\.backward|fine-?tun(?:e|ing)\b|\btrain\.py\b|\bfinetune\.py\b|\bsft\b|\bLoRA\b/i;
const INFERENCE =
  /\.generate\(|\bgenerate\b|\bvllm\b|comfy|KSampler|\binference\b|\bsampl(?:e|er|ing)\b|pipeline\(|\bpredict\b|no_grad|inference_mode|txt2img|img2img|\bdetect\.py\b|\bdemo\.py\b|\binfer\b|\bsample\.py\b|\beval(?:uate)?\b/i;
const LOADING =
  /_apply\(|param_applied|load_state_dict|_load_from_state_dict|from_pretrained|load_checkpoint|load_model|safetensors|set_module_tensor_to_device|\bmodel\.(?:cuda|to)\(|torch\.load\(/;
const BATCH = /\b(?:batch[_ -]?size|per_device_train_batch_size|train_batch_size|micro_batch_size|bs|batch)\b["']?\s*[=:]?\s*(\d{1,6})\b/gi;
const WINDOWS = /\b[A-Z]:\\|\\\\|\.bat\b|\.exe\b|\bwin32\b|\bwin_amd64\b|\bWindows\b/;
const EXPANDABLE = /expandable_segments\s*:\s*True/i;
const MAX_SPLIT = /max_split_size_mb\s*:\s*\d+/i;

/** The text around `all[i]` with every message's own span left out (only its neighbours can overlap). */
function around(text: string, all: readonly OomMessage[], i: number): { before: string; after: string } {
  const m = all[i]!;
  const cut = (from: number, to: number) => {
    let lo = i;
    while (lo > 0 && all[lo - 1]!.end > from) lo--;
    let s = '';
    let at = from;
    for (let j = lo; j < all.length && all[j]!.offset < to; j++) {
      const o = all[j]!;
      if (o.end <= at) continue;
      s += text.slice(at, Math.max(at, o.offset));
      at = Math.max(at, o.end);
    }
    return s + text.slice(at, Math.max(at, to));
  };
  return { before: cut(Math.max(0, m.offset - BEFORE), m.offset), after: cut(m.end, Math.min(text.length, m.end + AFTER)) };
}

/** `all` in order, `i` the message's place in it. */
export function oomContext(text: string, all: readonly OomMessage[], i: number): OomContext {
  const { before, after } = around(text, all, i);
  const near = before + '\n' + after;
  // The traceback's last frames: before the message, or after it where a launcher prints the
  // message first (torchrun's ranks, "During handling of the above exception").
  const tail = before.slice(-TAIL) + '\n' + after.slice(0, TAIL);
  const training = TRAINING.test(near);
  const batches = [...near.matchAll(BATCH)].map((x) => Number(x[1]));
  return {
    ...(batches.length ? { batch: batches.reduce((m, x) => Math.max(m, x), -Infinity) } : {}),
    training,
    inference: !training && INFERENCE.test(near),
    loading: !/\bbackward\b|forward\(/.test(tail) && LOADING.test(tail),
    windows: WINDOWS.test(near),
    expandable: EXPANDABLE.test(near.replace(/PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation/g, '')),
    maxSplit: MAX_SPLIT.test(near.replace(/try setting max_split_size_mb to avoid/g, '')),
    ...(/\bvllm\b/i.test(near) ? { server: 'vllm' as const } : {}),
  };
}

/** No text around (a message on its own): nothing is known of the job. */
export const NO_CONTEXT: OomContext = {
  training: false,
  inference: false,
  loading: false,
  windows: false,
  expandable: false,
  maxSplit: false,
};
