// Recording windows against full recording, on the same deterministic script (the overhead issue's
// launch-bound loop, 10 iterations) recorded on an H100 both ways by
// test/gpu/capture/overhead/verify.sh. Window mode's peak snapshot must give the same figures as
// the full trace: the peak PyTorch measured, and the same lines at the peak with the same bytes.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { attributeAt } from '../../extension/src/core/analysis/attributeAt';
import { recordingMode, windowNote, windowNoteBeside } from '../../extension/src/core/run/recordingMode';
import { readRun } from '../../extension/src/core/run/runFolder';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { ROOT } from './helpers';

const DIR = join(ROOT, 'test', 'fixtures', 'window');

async function capture(mode: 'window' | 'full', snapshot: string) {
  const s = await loadSnapshotFile(join(DIR, mode, snapshot));
  const p = readRun(join(DIR, mode)).processes[0]!;
  const a = analyzeDevice(s, 0, undefined, p.backward);
  const at = attributeAt(s, a, a.replay.peak);
  // PyTorch's own peak (requested_bytes.all.peak), as the agent's samples carried it.
  const torchPeak = Math.max(...p.samples.filter((x) => x.device === 0).map((x) => x.max_requested));
  return { p, a, at, torchPeak };
}

describe('recording windows give the figures of full recording', () => {
  it("the window's peak snapshot holds PyTorch's exact peak, and the same lines at it as the full trace", async () => {
    const w = await capture('window', 'snapshot-peak.pickle.gz');
    const f = await capture('full', 'snapshot-exit.pickle.gz');
    assert.equal(recordingMode(w.p).mode, 'window');
    assert.equal(recordingMode(f.p).mode, 'full');
    assert.equal(w.a.replay.peak.requestedBytes, w.torchPeak);
    assert.equal(f.a.replay.peak.requestedBytes, f.torchPeak);
    assert.equal(w.a.replay.peak.requestedBytes, f.a.replay.peak.requestedBytes);
    const top = (x: typeof w) =>
      x.at.lines.slice(0, 10).map((l) => `${l.file.split('/').pop()}:${l.line} ${l.selfBytes} ${l.inclusiveBytes}`);
    assert.deepEqual(top(w), top(f));
    assert.equal(w.at.totalBytes, f.at.totalBytes);
  });

  it("the window's trace is a fraction of the full one: the cost it saved", async () => {
    const w = await capture('window', 'snapshot-peak.pickle.gz');
    const f = await capture('full', 'snapshot-exit.pickle.gz');
    assert.ok(w.a.replay.n < f.a.replay.n / 2, `${w.a.replay.n} vs ${f.a.replay.n} events`);
  });

  it("a windowed run's report says so, and says nothing of a missed peak when there was none", async () => {
    const w = await capture('window', 'snapshot-peak.pickle.gz');
    const note = windowNote(w.p, 0, w.a.replay.peak.requestedBytes)!;
    assert.match(note, /Recorded in windows \(1\)/);
    assert.doesNotMatch(note, /between windows and did not come back/);
    assert.match(windowNote(w.p, 0, w.a.replay.peak.requestedBytes - 1)!, /is above this snapshot's/);
    assert.equal(windowNote(readRun(join(DIR, 'full')).processes[0]!, 0, 1), undefined);
  });

  it('the summary page and the timeline find the note from the snapshot file alone (its run folder beside it)', async () => {
    const w = await capture('window', 'snapshot-peak.pickle.gz');
    assert.match(
      windowNoteBeside(join(DIR, 'window', 'snapshot-peak.pickle.gz'), 0, w.a.replay.peak.requestedBytes) ?? '',
      /Recorded in windows/,
    );
    assert.equal(windowNoteBeside(join(DIR, 'full', 'snapshot-exit.pickle.gz'), 0, 1), undefined, 'a full run says nothing');
    assert.equal(
      windowNoteBeside(join(ROOT, 'test', 'fixtures', 'snapshots', 'leaky_demo.pickle'), 0, 1),
      undefined,
      'a file outside a run says nothing',
    );
  });
});
