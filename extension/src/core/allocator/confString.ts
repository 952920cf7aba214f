import type { AllocConfig } from './config';

const MiB = 2 ** 20;

/** A PYTORCH_CUDA_ALLOC_CONF entry the model does not know: said, never ignored. */
export class AllocConfError extends Error {
  override name = 'AllocConfError';
}

/**
 * `expandable_segments:True,max_split_size_mb:64` (PyTorch's syntax; `=` accepted for `:`) applied
 * over a base configuration: the options that decide where blocks go. Options that do not (the
 * pinned-memory ones, release_lock_on_cudamalloc) are accepted and change nothing; `backend` other
 * than native cannot be predicted.
 */
export function applyAllocConf(base: AllocConfig, conf: string): AllocConfig {
  const out: AllocConfig = { ...base, rounding: { divisions: [...base.rounding.divisions] } };
  for (const part of conf
    .split(/,(?![^[]*\])/)
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([a-z_0-9]+)\s*[:=]\s*(.+)$/i.exec(part);
    if (!m) throw new AllocConfError(`"${part}" is not KEY:VALUE`);
    const [, key, value] = m as unknown as [string, string, string];
    const num = () => {
      const n = Number(value);
      if (!Number.isFinite(n) || n < 0) throw new AllocConfError(`${key} expects a number, got "${value}"`);
      return n;
    };
    if (key === 'expandable_segments') out.expandable = /^true$/i.test(value);
    else if (key === 'max_split_size_mb') {
      const n = num();
      if (n <= 20) throw new AllocConfError('max_split_size_mb must be above 20 (PyTorch refuses smaller)');
      out.maxSplitSize = n * MiB;
    } else if (key === 'max_non_split_rounding_mb') out.maxNonSplitRounding = num() * MiB;
    else if (key === 'garbage_collection_threshold') out.gcThreshold = num();
    else if (key === 'roundup_power2_divisions') out.rounding.divisions = divisions(value);
    else if (key === 'large_segment_size_mb') {
      if (num() !== 20) throw new AllocConfError('large_segment_size_mb (PyTorch 2.11+) is not modelled: only its default, 20');
    } else if (key === 'backend') {
      if (value !== 'native')
        throw new AllocConfError(`backend:${value} cannot be predicted (only the native caching allocator is modelled)`);
    } else if (
      !/^(pinned_use_cuda_host_register|pinned_num_register_threads|release_lock_on_cudamalloc|pinned_use_background_threads)$/.test(key)
    )
      throw new AllocConfError(`unknown allocator option ${key}`);
  }
  return out;
}

/** `4` (every interval) or `[64:8,128:2,>:1]` (interval start in MiB: divisions). */
function divisions(value: string): number[] {
  const d = new Array<number>(16).fill(0);
  if (!value.startsWith('[')) return d.fill(Number(value) || 0);
  let last = 0;
  for (const item of value.slice(1, -1).split(',')) {
    const [k, v] = item.split(':').map((x) => x.trim());
    const n = Number(v);
    if (k === '>') {
      for (let i = last + 1; i < 16; i++) d[i] = n;
      continue;
    }
    const i = Math.max(0, Math.min(15, Math.round(Math.log2(Number(k)))));
    d[i] = n;
    last = i;
  }
  return d;
}
