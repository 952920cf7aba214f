import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { whatifContext } from '../../extension/src/core/allocator/whatif';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { isFromWebview } from '../../extension/src/core/protocol';
import type { ScaleView, ToWebview } from '../../extension/src/core/protocol';
import { maxBatch } from '../../extension/src/core/scale/maxBatch';
import { predictScale } from '../../extension/src/core/scale/predict';
import { scaleRoles } from '../../extension/src/core/scale/roles';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { ScaleFeed } from '../../extension/src/host/scaleFeed';
import { EDITOR_WHATIF_EVENTS } from '../../extension/src/host/whatifFeed';
import { ROOT } from './helpers';

// The summary page's batch section as the host feeds it (no VS Code API at run time): the figures of
// core/scale under the limit the recorded OOM shows, only the latest of a dragged slider's asks.
const SNAPS = join(ROOT, 'test', 'fixtures', 'snapshots');
const log = { warn: (m: string) => assert.fail(m) } as never;

async function settle(feed: ScaleFeed, until: (v: ScaleView) => boolean): Promise<ScaleView[]> {
  const seen: ScaleView[] = [];
  feed.subscribe((m: ToWebview) => void (m.type === 'scale' && seen.push(m.scale)));
  for (let i = 0; i < 500 && !(seen.length && until(seen.at(-1)!)); i++) await new Promise((r) => setTimeout(r, 10));
  return seen;
}

describe("the summary page's batch section", () => {
  it('first twice the batch, then what the slider asks (the latest only), as core/scale predicts under the recorded OOM’s limit', async () => {
    const s = await loadSnapshotFile(join(SNAPS, 'frag_oom.pickle'));
    const a = analyzeDevice(s, 0);
    const limit = whatifContext(s, a).limit!;
    const expect = (x: number) => predictScale(s, a, scaleRoles(s, a), x, { limit });
    const first = new ScaleFeed(s, a, log);
    const v = (await settle(first, (x) => x.scale !== null)).at(-1)!;
    assert.deepEqual(
      [v.scale, v.requestedPeak, v.reservedPeak, v.ooms, v.limitBytes],
      [2, expect(2).requestedPeak, expect(2).reservedPeak, expect(2).ooms, limit.bytes],
    );
    first.dispose();
    const feed = new ScaleFeed(s, a, log);
    feed.ask(0.5);
    feed.ask(0.25);
    const seen = await settle(feed, (x) => x.scale === 0.25);
    assert.deepEqual(
      seen.map((x) => x.scale),
      [0.25],
      'asks overtaken before their turn are never computed',
    );
    assert.equal(seen[0]!.requestedPeak, expect(0.25).requestedPeak);
    feed.largest();
    const best = (await settle(feed, (x) => x.largest !== undefined)).at(-1)!.largest;
    assert.equal(best, maxBatch(s, a, scaleRoles(s, a), limit, 0.05).best);
    assert.deepEqual(feed.latest(), { type: 'scale', scale: { ...seen[0]!, largest: best } });
    feed.dispose();
  });

  it('a run without an OOM has no limit to fit: no largest batch; a trace too long for the editor says where to ask', async () => {
    const s = await loadSnapshotFile(join(SNAPS, 'e2e_train_b64.pickle'));
    const a = analyzeDevice(s, 0);
    const feed = new ScaleFeed(s, a, log);
    const v = (await settle(feed, (x) => x.scale !== null)).at(-1)!;
    assert.equal(v.limitBytes, null);
    feed.largest();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal((feed.latest() as { scale: ScaleView }).scale.largest, undefined);
    feed.dispose();
    const long = new ScaleFeed(s, { ...a, replay: { ...a.replay, n: EDITOR_WHATIF_EVENTS + 1 } }, log);
    assert.match((long.latest() as { scale: ScaleView }).scale.error!, /headroom whatif --batch-scale in a terminal/);
    long.dispose();
  });

  it('the page may ask only a sane multiple of the batch', () => {
    assert.equal(isFromWebview({ type: 'scale', scale: 2 }), true);
    assert.equal(isFromWebview({ type: 'largestScale' }), true);
    for (const scale of [0, -1, 1e9, Number.NaN, '2', undefined])
      assert.equal(isFromWebview({ type: 'scale', scale }), false, String(scale));
  });
});
