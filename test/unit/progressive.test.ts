import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { attributeAt } from '../../extension/src/core/analysis/attributeAt';
import { answerPartial } from '../../extension/src/core/analysis/partialAnswer';
import type { PartialAnswer } from '../../extension/src/core/analysis/partialAnswer';
import { loadProgressively } from '../../extension/src/core/analysis/progressive';
import { isSnapshotError } from '../../extension/src/core/errors';
import { loadSnapshotFile, loadSnapshotStream, parseSnapshot } from '../../extension/src/core/snapshot/load';
import { OWN_SNAPSHOTS, pythonBytes, ROOT } from './helpers';

// Issue 40: the peak and top lines of the part of a file read so far, while the rest is read.

const REAL = join(OWN_SNAPSHOTS, 'transformer_amp_ckpt.pickle');
const dir = mkdtempSync(join(tmpdir(), 'headroom-progressive-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The real file cut by Python to its first n trace entries, with nothing of its end state (what was read so far). */
function cutByPython(n: number): Uint8Array {
  const code =
    'import pickle, sys\ns = pickle.load(open(sys.argv[1], "rb"))\ns["device_traces"][0] = s["device_traces"][0][: int(sys.argv[2])]\n' +
    's["segments"] = []\ns["allocator_settings"] = None\nsys.stdout.buffer.write(pickle.dumps(s, protocol=4))';
  return pythonBytes(code, [REAL, String(n)]);
}

async function* chunks(bytes: Uint8Array, size: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const lineKey = (l: { file: string; line: number; selfBytes: number }) => `${l.file}:${l.line} ${l.selfBytes}`;

describe('answers from the part read so far', () => {
  it('each is what the full analysis says of the file cut there by Python: the peak, its event and the lines at it', async () => {
    const bytes = readFileSync(REAL);
    const seen: { events: number; answer: PartialAnswer }[] = [];
    // 16 KiB at a time: the file's trace arrives over dozens of chunks.
    await loadSnapshotStream(chunks(bytes, 16 << 10), {
      onRows: (sofar, read) => {
        const s = sofar();
        const n = s.columns.action.length;
        if (n > 0 && (seen.length === 0 || n >= 2 * seen[seen.length - 1]!.events))
          seen.push({ events: n, answer: answerPartial(s, read, bytes.length) });
      },
    });
    assert.ok(seen.length >= 3, `answers at ${seen.map((x) => x.events)}`);
    for (const { events, answer } of seen) {
      const cut = parseSnapshot(cutByPython(events));
      const a = analyzeDevice(cut, 0);
      assert.equal(answer.events, events);
      assert.equal(answer.peakBytes, a.replay.peak.requestedBytes, `peak after ${events} events`);
      assert.equal(answer.peakIndex, a.replay.peak.index);
      const lines = attributeAt(cut, a, a.replay.peak)
        .lines.sort((x, y) => y.selfBytes - x.selfBytes)
        .slice(0, answer.lines.length);
      assert.deepEqual(answer.lines.map(lineKey), lines.map(lineKey), `lines after ${events} events`);
    }
  });

  it('a large file answers before it is read, each answer on at least four times the events of the last, none past 60 % of the file, and loads the same snapshot as without them', async () => {
    // A real trace repeated to 120,000 events (about 7 MB: seven of the reader's 1 MiB chunks).
    const big = join(dir, 'big.pickle');
    execFileSync('python3', [join(ROOT, 'bench', 'synth_big.py'), REAL, big, '120000']);
    const answers: PartialAnswer[] = [];
    const s = await loadProgressively(big, { firstAfterMs: 0, onPartial: (a) => answers.push(a) });
    const plain = await loadSnapshotFile(big);
    // The first chunk answers (firstAfterMs 0); how many follow depends on this machine's speed.
    assert.ok(answers.length >= 1, `${answers.length} answers`);
    const n = s.columns.action.length;
    assert.equal(n, plain.columns.action.length);
    assert.deepEqual(s.columns.size, plain.columns.size);
    for (let i = 1; i < answers.length; i++) assert.ok(answers[i]!.events >= 4 * answers[i - 1]!.events);
    for (const a of answers) {
      assert.ok(a.events > 0 && a.events < n && a.read <= 0.6 * a.total!, JSON.stringify({ events: a.events, read: a.read }));
      assert.ok(a.lines.length > 0 && a.lines[0]!.selfBytes > 0);
    }
  });

  it('cancelling while answers come stops the load with a typed error', async () => {
    const big = join(dir, 'cancel.pickle');
    execFileSync('python3', [join(ROOT, 'bench', 'synth_big.py'), REAL, big, '120000']);
    const abort = new AbortController();
    let answers = 0;
    await assert.rejects(
      loadProgressively(big, {
        firstAfterMs: 0,
        signal: abort.signal,
        onPartial: () => {
          answers++;
          abort.abort();
        },
      }),
      (e) => isSnapshotError(e) && e.code === 'cancelled',
    );
    assert.equal(answers, 1);
  });
});
