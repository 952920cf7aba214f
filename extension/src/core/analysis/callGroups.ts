import type { Snapshot } from '../snapshot/model';
import type { DeviceAnalysis } from './deviceAnalysis';
import type { BucketKind } from './attribution';
import { NOT_BACKWARD } from './backward';
import type { Path, StackPaths } from './callPaths';
import { hasModuleScopes, scopeReader } from './modules';
import { Origin } from './replay';

/** Live blocks that take the same place in the tree. */
export interface Group {
  bytes: number;
  blocks: number;
  kind: BucketKind | 'line';
  path: Path | undefined;
  site: number;
  node: string | undefined;
  scope: string | undefined;
  /** Index of the named tensor in ParamsCredit.tensors, when the run's optimizer steps saw this block. */
  tensor?: number;
}

/**
 * The live blocks (`live`, element ids) grouped by where they go in the tree: a user line's stack
 * (and module scope), a bucket, a named tensor (`credit[i]`, an index into ParamsCredit.tensors).
 */
export function groupBlocks(s: Snapshot, a: DeviceAnalysis, live: Int32Array, paths: StackPaths, credit?: Int32Array): Group[] {
  const e = a.replay.elements;
  const groups: Group[] = [];
  // A user line's group is found by stack id (and module scope), the buckets' by a short key: a
  // million blocks then cost no string made per block.
  const byStack = new Int32Array(s.stacks.size + 1).fill(-1);
  const byScope = new Map<string, Map<number, number>>();
  const byKey = new Map<string, number>();
  const scopeOf = hasModuleScopes(s) ? scopeReader(s, a) : undefined;
  const backwardKey = (k: number): string => `w${a.backward.site[k]}|${a.backward.node.get(k) ?? ''}`;
  for (let i = 0; i < live.length; i++) {
    const k = live[i]!;
    const origin = e.origin[k]!;
    const stack = origin !== Origin.UnmatchedFree ? e.stack[k]! : -1;
    const p = stack >= 0 ? paths.of(stack) : undefined;
    let kind: BucketKind | 'line' = 'line';
    let scope: string | undefined;
    let gi: number;
    const c = credit ? credit[i]! : -1;
    if (c >= 0) {
      kind =
        p && p.self >= 0
          ? 'line'
          : origin !== Origin.Trace
            ? 'before_recording'
            : a.backward.site[k] !== NOT_BACKWARD
              ? 'backward'
              : p?.python
                ? 'library'
                : 'no_stack';
      const key = `t${c}|${kind}|${stack}|${a.backward.site[k]}|${a.backward.node.get(k) ?? ''}`;
      gi = byKey.get(key) ?? -1;
      if (gi < 0)
        byKey.set(
          key,
          (gi =
            groups.push({ bytes: 0, blocks: 0, kind, path: p, site: a.backward.site[k]!, node: a.backward.node.get(k), scope, tensor: c }) -
            1),
        );
    } else if (p && p.self >= 0) {
      const sc = scopeOf?.(k);
      scope = sc && sc.phase === 'forward' && p.module >= 0 ? sc.path : undefined;
      if (scope === undefined) {
        gi = byStack[stack]!;
        if (gi < 0) byStack[stack] = gi = groups.push({ bytes: 0, blocks: 0, kind, path: p, site: -1, node: undefined, scope }) - 1;
      } else {
        let m = byScope.get(scope);
        if (!m) byScope.set(scope, (m = new Map()));
        gi = m.get(stack) ?? -1;
        if (gi < 0) m.set(stack, (gi = groups.push({ bytes: 0, blocks: 0, kind, path: p, site: -1, node: undefined, scope }) - 1));
      }
    } else {
      kind =
        origin !== Origin.Trace
          ? 'before_recording'
          : a.backward.site[k] !== NOT_BACKWARD
            ? 'backward'
            : p?.python
              ? 'library'
              : 'no_stack';
      gi = byKey.get(kind === 'library' ? `b${stack}` : kind === 'backward' ? backwardKey(k) : kind) ?? -1;
    }
    if (gi < 0) {
      const key = kind === 'library' ? `b${stack}` : kind === 'backward' ? backwardKey(k) : kind;
      byKey.set(
        key,
        (gi = groups.push({ bytes: 0, blocks: 0, kind, path: p, site: a.backward.site[k]!, node: a.backward.node.get(k), scope }) - 1),
      );
    }
    const g = groups[gi]!;
    g.bytes += e.size[k]!;
    g.blocks++;
  }

  return groups;
}
