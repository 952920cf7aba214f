// Recording windows (the default mode, window.py) on fakecuda's device: the recorder runs from the
// first CUDA use until the peak stops rising, the peak snapshot is written as the window closes,
// and a later rise reopens a window at the next backward(). Full mode keeps the recorder on.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { DEBIAN_PY, ensureDebianTorch, runAsync } from './pythons';

const AGENT = join(__dirname, '..', '..', 'extension', 'agent');
const WORKLOADS = join(__dirname, 'workloads');

async function run(mode: 'window' | 'full' | undefined, extra: NodeJS.ProcessEnv = {}) {
  const runs = mkdtempSync(join(tmpdir(), 'headroom-window-'));
  const history = join(runs, 'history.txt');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PYTHONPATH: [AGENT, WORKLOADS].join(':'),
    HEADROOM_AGENT: '1',
    HEADROOM_RUNS_DIR: runs,
    HEADROOM_RUN_ID: 'r',
    HEADROOM_SAMPLE_MS: '10',
    HEADROOM_TEST_HISTORY: history,
    ...extra,
  };
  if (mode) env.HEADROOM_RECORD = mode;
  const r = await runAsync(DEBIAN_PY, [join(WORKLOADS, 'window.py'), '0.3'], env, { hangGuardMs: 120_000 });
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'done\n');
  const dir = join(runs, 'r');
  const events = readFileSync(join(dir, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return {
    dir,
    events,
    history: readFileSync(history, 'utf8').trim().split('\n'),
    meta: JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as { recording: { mode: string } },
  };
}

describe('recording windows', () => {
  before(() => ensureDebianTorch());

  it('by default: on until the peak stops rising, the peak snapshot at the close, reopened by a rise', async () => {
    const { dir, events, history, meta } = await run(undefined);
    assert.equal(meta.recording.mode, 'window');
    const kinds = events.map((e) => (e.event === 'snapshot' ? `snapshot:${String(e.kind)}` : String(e.event)));
    const opens = events.filter((e) => e.event === 'window_open');
    const closes = events.filter((e) => e.event === 'window_close');
    assert.equal(opens.length, 3, kinds.join(' '));
    assert.equal(closes.length, 2, kinds.join(' '));
    assert.match(String(opens[1]!.reason), /peak rose/);
    assert.match(String(opens[2]!.reason), /switched to eval\(\)/, 'train() each step is no switch; eval() is');
    // The recorder was switched on, off, on, off, on: the calls PyTorch saw.
    assert.deepEqual(history, ['all', 'None', 'all', 'None', 'all']);
    // The first window: 3 rising steps, then 4 quiet ones; a peak snapshot with the trace, before the close.
    assert.equal(closes[0]!.calls, 7);
    // The second window opened after the rise and saw no new one: its snapshot is its own, not the peak's.
    const peaks = events.filter((e) => e.event === 'snapshot' && e.kind === 'peak');
    assert.equal(peaks.length, 1);
    assert.equal(closes[1]!.peak_snapshot, false);
    const second = events.filter((e) => e.event === 'snapshot' && e.kind === 'window');
    assert.equal(second.length, 1);
    for (const p of [...peaks, ...second]) assert.equal(p.trace, true);
    assert.ok(kinds.indexOf('snapshot:peak') < kinds.indexOf('window_close'));
    // Backward calls are recorded only inside windows (engine allocations need them only there).
    const backwards = events.filter((e) => e.event === 'backward').length;
    assert.equal(backwards, Number(closes[0]!.calls) + Number(closes[1]!.calls));
    const exit = events.find((e) => e.event === 'snapshot' && e.kind === 'exit');
    assert.ok(exit && exit.trace === true, 'the eval window is still open at exit: its snapshot has the trace');
    assert.ok(existsSync(join(dir, 'snapshot-peak.pickle')));
  });

  it('--modules auto: module scopes are stamped while a window records, and not between windows', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'headroom-meta-')), 'meta.txt');
    const { events } = await run(undefined, { HEADROOM_MODULES: 'auto', HEADROOM_TEST_METADATA: log });
    // Per step of the workload: whether a module forward was stamped with its scope.
    const stamped: boolean[] = [];
    for (const l of readFileSync(log, 'utf8').trim().split('\n')) {
      if (l.startsWith('mark step ')) stamped.push(false);
      else if (l.includes('\\x1ehr:f:') && stamped.length) stamped[stamped.length - 1] = true;
    }
    assert.equal(stamped.length, 27);
    const closes = events.filter((e) => e.event === 'window_close');
    const first = Number(closes[0]!.calls);
    // The first window: every step up to its close; then off until the rise reopens one (step 15,
    // seen by the sampler); the hooks return at the next step boundary and stay while it records.
    assert.deepEqual(stamped.slice(0, first), Array(first).fill(true), stamped.join());
    assert.deepEqual(stamped.slice(first, 15), Array(15 - first).fill(false), stamped.join());
    assert.ok(stamped.slice(16, 16 + Number(closes[1]!.calls) - 1).every(Boolean), stamped.join());
    assert.equal(stamped[26], false, 'the second window closed: no scopes after it');
  });

  it('--record full: the recorder stays on, every backward() is recorded', async () => {
    const { events, history, meta } = await run('full');
    assert.equal(meta.recording.mode, 'full');
    assert.deepEqual(history, ['all']);
    assert.equal(events.filter((e) => e.event === 'window_open').length, 0);
    assert.equal(events.filter((e) => e.event === 'backward').length, 27);
  });

  it("a workload's own _record_memory_history goes through unchanged (same result, same error), seen only in window mode", async () => {
    const code = `import torch
f = torch.cuda.memory._record_memory_history
print(f.__name__, hasattr(f, "__wrapped__"))
try:
    f("all")
    print("ok")
except Exception as e:
    print(type(e).__name__, str(e)[:60])`;
    const runs = mkdtempSync(join(tmpdir(), 'headroom-window-'));
    const base: NodeJS.ProcessEnv = { ...process.env, HEADROOM_RUNS_DIR: runs, HEADROOM_RUN_ID: 'r' };
    const go = (env: NodeJS.ProcessEnv) => runAsync(DEBIAN_PY, ['-c', code], env, { hangGuardMs: 120_000 });
    const plain = await go({ ...base, PYTHONPATH: '' });
    const windowed = await go({ ...base, PYTHONPATH: AGENT, HEADROOM_AGENT: '1' });
    const full = await go({ ...base, PYTHONPATH: AGENT, HEADROOM_AGENT: '1', HEADROOM_RECORD: 'full' });
    assert.match(plain.out, /^_record_memory_history False\n/);
    assert.equal(
      windowed.out,
      plain.out.replace(/^_record_memory_history False/, '_record_memory_history True'),
      'the same name and outcome, wrapped',
    );
    assert.equal(full.out, plain.out, 'full mode leaves it as it is');
  });

  it("near the device's total, a window opens once, not again while reserved memory stays where it is", async () => {
    const runs = mkdtempSync(join(tmpdir(), 'headroom-window-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PYTHONPATH: [AGENT, WORKLOADS].join(':'),
      HEADROOM_AGENT: '1',
      HEADROOM_RUNS_DIR: runs,
      HEADROOM_RUN_ID: 'r',
      HEADROOM_SAMPLE_MS: '10',
    };
    const r = await runAsync(DEBIAN_PY, [join(WORKLOADS, 'window_near.py')], env, { hangGuardMs: 120_000 });
    assert.equal(r.code, 0, r.err);
    const events = readFileSync(join(runs, 'r', 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const reasons = events.filter((e) => e.event === 'window_open').map((e) => String(e.reason));
    assert.deepEqual(reasons, ['start', "reserved memory near the device's total"]);
  });
});
