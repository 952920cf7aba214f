import type { ParamsCredit } from '../core/analysis/params';

/** `headroom analyze --json`'s "params": live bytes by named parameter tensor and by module, from the run's optimizer steps. */
export function paramsJson(c: ParamsCredit) {
  return {
    live_bytes: c.liveBytes,
    credited_bytes: c.creditedBytes,
    by_kind: Object.fromEntries(Object.entries(c.byKind).map(([k, v]) => [k, { bytes: v.bytes, blocks: v.blocks }])),
    tensors: c.tensors.map((t) => ({ name: t.name, kind: t.kind, key: t.key, named: t.named, bytes: t.bytes, blocks: t.blocks })),
    modules: c.modules.map((m) => ({ module: m.module, bytes: m.bytes, blocks: m.blocks, by_kind: m.byKind })),
    notes: c.notes,
  };
}
