// The flame graph's pruning (core/flame/prune.ts) on real captures, its layout and search
// (webview/src/flame, pure), and the validators of the messages its pages send.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { attributeAt } from '../../extension/src/core/analysis/attributeAt';
import { callTree } from '../../extension/src/core/analysis/callTree';
import type { CallNode } from '../../extension/src/core/analysis/callNode';
import { isFromFlame } from '../../extension/src/core/flame/protocol';
import type { FlameNode } from '../../extension/src/core/flame/protocol';
import { FLAME_MIN_PX, FLAME_WIDTH_PX, FlameIds, flameMinBytes, pruneFlame } from '../../extension/src/core/flame/prune';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { isFromTimeline } from '../../extension/src/core/timeline/protocol';
import { findNode, hasPruned, keyOf, layoutFlame, parentsOf, pathTo, samePath } from '../../webview/src/flame/layout';
import { neighbour, searchFlame } from '../../webview/src/flame/search';
import { ROOT } from './helpers';

const CAPTURES = [
  join(ROOT, 'test', 'fixtures', 'modules', 'hf_trainer', 'snapshot-peak.pickle.gz'),
  join(ROOT, 'test', 'fixtures', 'snapshots', 'leaky_demo.pickle'),
];

function* all<T extends { children: T[] }>(n: T): Generator<T> {
  yield n;
  for (const c of n.children) yield* all(c);
}

async function peakTree(path: string): Promise<{ root: CallNode; total: number; blocks: number }> {
  const s = await loadSnapshotFile(path);
  const a = analyzeDevice(s, 0);
  const attr = attributeAt(s, a, a.replay.peak);
  return { root: callTree(s, a, a.replay.peak.index).root, total: attr.totalBytes, blocks: attr.totalBlocks };
}

/** A small tree by hand: a(100) → b(60: d 40, e 15, self 5), c(30), self 10. */
function node(id: number, label: string, bytes: number, children: FlameNode[] = [], file = ''): FlameNode {
  const sum = children.reduce((x, c) => x + c.bytes, 0);
  return {
    id,
    kind: file ? 'user' : 'bucket',
    label,
    file,
    line: id,
    bytes,
    blocks: 1,
    selfBytes: bytes - sum,
    otherBytes: 0,
    otherCount: 0,
    folded: [],
    selfVia: [],
    children,
  };
}
const d = node(3, 'load_data', 40, [], '/w/data.py');
const e = node(4, 'Model.forward', 15, [], '/w/model.py');
const b = node(1, 'train', 60, [d, e], '/w/train.py');
const c = node(2, 'evaluate', 30, [], '/w/train.py');
const a = node(0, 'all live memory', 100, [b, c]);

describe('flame graph', () => {
  for (const path of CAPTURES) {
    it(`${path.split('/').slice(-2).join('/')}: pruning keeps the totals, every frame adds up, nothing under the threshold is sent`, async () => {
      const t = await peakTree(path);
      for (const min of [flameMinBytes(t.total), t.total / 50, t.total / 3]) {
        const ids = new FlameIds();
        const f = pruneFlame(t.root, ids, { minBytes: min });
        assert.equal(f.bytes, t.total, 'the top is all live memory (the attribution’s total)');
        assert.equal(f.blocks, t.blocks);
        let left = 0;
        for (const n of all(f)) {
          assert.equal(
            n.children.reduce((x, k) => x + k.bytes, n.selfBytes + n.otherBytes),
            n.bytes,
            `${n.label} adds up`,
          );
          if (n !== f) assert.ok(n.bytes >= min, `${n.label}: ${n.bytes} < ${min}`);
          const full = ids.nodes.get(n.id)!;
          assert.equal(full.bytes, n.bytes);
          const gone = full.children.filter((k) => !n.children.some((m) => ids.nodes.get(m.id) === k));
          assert.equal(gone.length, n.otherCount);
          assert.ok(gone.every((k) => k.bytes < min));
          left += n.otherCount;
        }
        if (min === t.total / 3) assert.ok(left > 0, 'a coarse threshold leaves frames out');
      }
      // Half a pixel at the widest graph: the threshold the host uses.
      assert.equal(flameMinBytes(t.total), (t.total * FLAME_MIN_PX) / FLAME_WIDTH_PX);
    });
  }

  it('the frame cap raises the threshold; the depth cap folds what is deeper into its parent', async () => {
    const t = await peakTree(CAPTURES[0]!);
    const ids = new FlameIds();
    const capped = pruneFlame(t.root, ids, { minBytes: 1, maxNodes: 10 });
    assert.ok([...all(capped)].length <= 10);
    assert.equal(capped.bytes, t.total);
    const shallow = pruneFlame(t.root, new FlameIds(), { minBytes: 1, maxDepth: 2 });
    const depth = (n: FlameNode): number => 1 + Math.max(0, ...n.children.map(depth));
    assert.equal(depth(shallow), 3);
    // An expanded frame keeps its id; its children are new.
    const first = capped.children[0]!;
    const again = pruneFlame(ids.nodes.get(first.id)!, ids, { minBytes: 1 }, first.id);
    assert.equal(again.id, first.id);
    assert.ok(again.children.every((k) => k.id > first.id && ids.nodes.has(k.id)));
  });

  it('layout: children share their parent’s width, the zoomed frame spans it all, nothing narrower than the threshold is drawn', async () => {
    const t = await peakTree(CAPTURES[0]!);
    const root = pruneFlame(t.root, new FlameIds(), { minBytes: flameMinBytes(t.total) });
    for (const minPx of [0, 1, 25]) {
      const rects = layoutFlame([root], 1000, minPx);
      const at = new Map(rects.map((r) => [r.node.id, r]));
      for (const r of rects) {
        assert.ok(r.w >= minPx, `${r.node.label} is ${r.w} px`);
        const kids = r.node.children.map((k) => at.get(k.id)).filter((k) => k !== undefined);
        if (minPx === 0) {
          const rest = ((r.node.selfBytes + r.node.otherBytes) / root.bytes) * 1000;
          assert.ok(Math.abs(kids.reduce((x, k) => x + k.w, rest) - r.w) < 1e-6, `${r.node.label}: children and self add up to its width`);
          assert.equal(kids.length, r.node.children.length);
        }
        // Inside the parent, left to right, one row down.
        let x = r.x;
        for (const k of kids) {
          assert.equal(k.depth, r.depth + 1);
          assert.ok(k.x >= x - 1e-9 && k.x + k.w <= r.x + r.w + 1e-6);
          x = k.x + k.w;
        }
      }
    }
    // Zoomed: the path spans the width, the zoomed frame's children share it.
    const path = [a, b];
    const rects = layoutFlame(path, 600, 1);
    assert.deepEqual(
      rects.map((r) => [r.node.label, r.depth, r.x, r.w]),
      [
        ['all live memory', 0, 0, 600],
        ['train', 1, 0, 600],
        ['load_data', 2, 0, 400],
        ['Model.forward', 2, 400, 150],
      ],
    );
    assert.deepEqual(
      layoutFlame(path, 600, 200).map((r) => r.node.label),
      ['all live memory', 'train', 'load_data'],
    );
    const parents = parentsOf(a);
    assert.deepEqual(
      pathTo(e, a, parents).map((n) => n.label),
      ['all live memory', 'train', 'Model.forward'],
    );
    // The zoom is found again in the next instant's tree by its frames' names and lines, as far as they go.
    assert.deepEqual(
      samePath([a, b, e].map(keyOf), structuredClone(a)).map((n) => n.label),
      ['all live memory', 'train', 'Model.forward'],
    );
    assert.deepEqual(
      samePath([a, c, e].map(keyOf), a).map((n) => n.label),
      ['all live memory', 'evaluate'],
    );
    assert.equal(findNode(a, 4), e);
    assert.equal(hasPruned(a), false);
    assert.equal(hasPruned({ ...a, children: [{ ...b, otherCount: 1 }] }), true);
  });

  it('search: label or file, any case; bytes counted once; keys walk the drawn frames', () => {
    const m = searchFlame(a, 'TRAIN');
    assert.deepEqual(
      m.nodes.map((n) => n.label),
      ['train', 'evaluate'],
    ); // evaluate's file is train.py
    assert.equal(m.bytes, 90);
    assert.equal(searchFlame(a, 'a').bytes, 100, 'a match inside a match adds nothing');
    assert.equal(searchFlame(a, '  ').nodes.length, 0);
    assert.equal(searchFlame(a, 'data.py').nodes[0], d);
    const drawn = new Map(layoutFlame([a], 100, 1).map((r) => [r.node.id, r]));
    const parents = parentsOf(a);
    assert.equal(neighbour('ArrowDown', a, parents, drawn), b);
    assert.equal(neighbour('ArrowRight', b, parents, drawn), c);
    assert.equal(neighbour('ArrowLeft', b, parents, drawn), undefined);
    assert.equal(neighbour('ArrowUp', e, parents, drawn), b);
    assert.equal(neighbour('ArrowUp', a, parents, drawn), undefined);
  });

  it('the validators refuse malformed messages', () => {
    for (const ok of [{ type: 'ready' }, { type: 'open', session: 1, id: 0 }, { type: 'expand', session: 3, id: 17 }])
      assert.ok(isFromFlame(ok), JSON.stringify(ok));
    const bad: unknown[] = [
      null,
      undefined,
      'ready',
      [],
      {},
      { type: 'open' },
      { type: 'open', session: 1 },
      { type: 'open', session: 1, id: -1 },
      { type: 'open', session: 1, id: 1.5 },
      { type: 'open', session: '1', id: 2 },
      { type: 'open', session: 1, id: Number.NaN },
      { type: 'expand', session: 1, id: 2 ** 60 },
      { type: 'open', file: '/etc/passwd', line: 1 },
      { type: 'openFrame', file: 'x.py', line: 1 },
      { type: 'constructor' },
    ];
    for (const m of bad) assert.equal(isFromFlame(m), false, JSON.stringify(m));
    assert.ok(isFromTimeline({ type: 'showFlame', session: 2, index: 40 }));
    assert.ok(isFromTimeline({ type: 'showFlame', session: -1, index: -1 }));
    assert.equal(isFromTimeline({ type: 'showFlame', session: 2 }), false);
    assert.equal(isFromTimeline({ type: 'showFlame', session: 2, index: 'peak' }), false);
  });
});
