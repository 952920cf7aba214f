import type { Snapshot } from '../snapshot/model';
import type { ClassNames } from '../source/classNames';
import type { DeviceAnalysis } from './deviceAnalysis';
import { BUCKET_LABELS } from './attribution';
import type { BucketKind } from './attribution';
import { groupBlocks } from './callGroups';
import type { Group } from './callGroups';
import { child, finish, frameNodes, lineKey, node, scoped } from './callNode';
import type { Acc, CallTree } from './callNode';
import { StackPaths } from './callPaths';
import type { Path } from './callPaths';
import type { ParamsCredit } from './params';
import { liveAt } from './replay';

/** Frame nodes a tree may hold: real models' trees hold tens of thousands. */
export const MAX_CALL_NODES = 400_000;
const MORE = '\u0000more';
const MORE_LABEL = '[more call paths: the tree is at its size limit]';

/**
 * The call tree of the memory live at trace index `index`: user lines and the model code beneath
 * them, from the stacks the snapshot already holds (no hooks). Blocks with no user frame hang under
 * the same buckets as the line attribution's, so the tree's root adds up to the live total.
 */
export function callTree(s: Snapshot, a: DeviceAnalysis, index: number, names?: ClassNames, params?: ParamsCredit): CallTree {
  const live = liveAt(a.replay.elements, index);
  // Blocks the run's optimizer steps named (params.ts, same instant): a leaf per named tensor.
  const credit = params && params.index === index && params.live.length === live.length ? params.credit : undefined;
  const paths = new StackPaths(s, a.classifier);
  const frameNode = frameNodes(s, a.classifier, paths.groupOf, names);
  const root = node('bucket', -1, 'all live memory');
  const beneath = new Map<string, Acc>();
  const add = (n: Acc, g: Group): void => {
    n.bytes += g.bytes;
    n.blocks += g.blocks;
  };
  // The tree is linear in the stacks' total length, but a node costs far more than a frame id: past
  // MAX_CALL_NODES a new path ends in one "more call paths" node under its parent (bytes still add up).
  let made = 0;
  const counted = (make: () => Acc) => () => {
    made++;
    return make();
  };
  const walk = (start: Acc, p: Path, from: number, g: Group): void => {
    let n = start;
    for (let i = from; i < p.frames.length; i++) {
      const f = p.frames[i]!;
      // With module scopes recorded, the innermost forward is this module instance (transformer.h.3.attn).
      const key = i === p.module && g.scope ? `${f}|${g.scope}` : f;
      if (made >= MAX_CALL_NODES && !n.kids.has(key)) {
        n = child(n, MORE, () => node('bucket', -1, MORE_LABEL));
        add(n, g);
        break;
      }
      n = child(
        n,
        key,
        counted(() => (key === f ? frameNode(f) : scoped(frameNode(f), g.scope!))),
        p.folds?.[i],
      );
      add(n, g);
    }
    for (const x of p.tail) n.viaSet.add(x);
    settle(n, g);
  };
  /** Where a group's path ends: its own bytes, or a leaf naming the parameter tensor it is. */
  const settle = (n: Acc, g: Group): void => {
    if (g.tensor !== undefined) {
      const t = params!.tensors[g.tensor]!;
      n = child(n, `t${g.tensor}`, () =>
        node('tensor', -1, `${t.name} (${t.kind === 'optimizer_state' ? `optimizer state${t.key ? ` ${t.key}` : ''}` : t.kind})`),
      );
      add(n, g);
    }
    n.selfBytes += g.bytes;
    n.selfBlocks += g.blocks;
  };

  // Blocks grouped first (by stack, module scope, bucket): the tree is then built once per group,
  // so a million live blocks cost a pass over numbers, not a million walks down the tree.
  for (const g of groupBlocks(s, a, live, paths, credit)) {
    add(root, g);
    const p = g.path;
    if (g.kind === 'line') {
      walk(root, p!, 0, g);
      const self = p!.frames[p!.self]!;
      const key = lineKey(s.frames.fileOf(self), s.frames.lineOf(self));
      let b = beneath.get(key);
      if (!b) beneath.set(key, (b = frameNode(self)));
      add(b, g);
      walk(b, p!, p!.self + 1, g);
      continue;
    }
    const bucket = child(root, g.kind, () => node('bucket', -1, `[${BUCKET_LABELS[g.kind as BucketKind]}]`));
    add(bucket, g);
    if (g.kind === 'library') {
      walk(bucket, p!, 0, g);
      continue;
    }
    let n = bucket;
    if (g.kind === 'backward') {
      const site = g.site;
      if (site >= 0) {
        n = child(bucket, site, () =>
          node('user', site, `backward() at ${s.frames.nameOf(site)}`, s.frames.fileOf(site), s.frames.lineOf(site), s.frames.nameOf(site)),
        );
        add(n, g);
      }
      if (g.node) {
        const name = g.node;
        n = child(n, `node:${name}`, () => node('bucket', -1, name));
        add(n, g);
      }
    }
    settle(n, g);
  }
  return { root: finish(root), beneath: new Map([...beneath].map(([k, v]) => [k, finish(v)])) };
}
