import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { whatif } from '../../extension/src/core/allocator/whatif';
import { SUMMARY_SETTINGS } from '../../extension/src/core/allocator/whatifView';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import type { ToWebview, WhatifView } from '../../extension/src/core/protocol';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { EDITOR_WHATIF_EVENTS, WhatifFeed } from '../../extension/src/host/whatifFeed';
import { ROOT } from './helpers';

// The summary page's what-if section as the host feeds it (no VS Code API at run time): the same
// figures as `headroom whatif`, one setting at a time, the form's asks after, and bounded work.
const FRAG = join(ROOT, 'test', 'fixtures', 'snapshots', 'frag_oom.pickle');
const log = { warn: (m: string) => assert.fail(m) } as never;

async function settle(feed: WhatifFeed): Promise<WhatifView[]> {
  const seen: WhatifView[] = [];
  feed.subscribe((m: ToWebview) => void (m.type === 'whatif' && seen.push(m.whatif)));
  for (let i = 0; i < 200 && (seen.at(-1)?.pending.length !== 0 || seen.length === 0); i++) await new Promise((r) => setTimeout(r, 10));
  return seen;
}

describe("the summary page's what-if feed", () => {
  it('posts each setting as it is predicted, the figures those of headroom whatif; the form asks after; a bad setting is a row saying why', async () => {
    const s = await loadSnapshotFile(FRAG);
    const a = analyzeDevice(s, 0);
    const feed = new WhatifFeed(s, a, log);
    const views = await settle(feed);
    assert.ok(views.length >= SUMMARY_SETTINGS.length, 'one update per setting at least');
    assert.ok(
      views.some((v) => v.pending.length > 0),
      'the first updates say what is still coming',
    );
    const last = views.at(-1)!;
    const cli = whatif(s, a, SUMMARY_SETTINGS);
    assert.deepEqual(
      last.rows.map((r) => ('error' in r ? r.error : r.reservedPeak)),
      cli.predicted.map((p) => ('unsupported' in p ? p.unsupported : p.reservedPeak)),
    );
    feed.ask('max_spilt_size_mb:64');
    feed.ask('expandable_segments:True', 1.6);
    const after = (await settle(feed)).at(-1)!;
    assert.match(JSON.stringify(after.rows.at(-2)), /unknown allocator option max_spilt_size_mb/);
    assert.equal((after.rows.at(-1) as { allocConf: string }).allocConf, 'expandable_segments:True under a 1.6 GiB cap');
    assert.deepEqual(feed.latest(), { type: 'whatif', whatif: after });
    feed.dispose();
  });

  it('a trace too long for the editor is not predicted there, and the section says where it can be', async () => {
    const s = await loadSnapshotFile(FRAG);
    const a = analyzeDevice(s, 0);
    const feed = new WhatifFeed(s, { ...a, replay: { ...a.replay, n: EDITOR_WHATIF_EVENTS + 1 } }, log);
    const v = (await settle(feed)).at(-1)!;
    assert.equal(v.rows.length, 1);
    assert.match(JSON.stringify(v.rows[0]), /the editor predicts up to 2,000,000 \(headroom whatif in a terminal predicts any\)/);
    assert.match(v.limit, /not read here/);
    feed.dispose();
  });
});
