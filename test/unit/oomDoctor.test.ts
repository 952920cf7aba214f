import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { doctorFor } from '../../extension/src/core/diagnose/doctor';
import { diagnoseMessage } from '../../extension/src/core/diagnose/messageDoctor';
import { diagnoseSnapshot } from '../../extension/src/core/diagnose/oom';
import { renderDiagnosis } from '../../extension/src/core/diagnose/oomText';
import { formatBytes } from '../../extension/src/shared/format';
import { isFromWebview } from '../../extension/src/core/protocol';
import { parseOomMessages } from '../../extension/src/core/oomMessage';
import { deviceFactsBeside, deviceTotalBeside } from '../../extension/src/core/run/deviceFacts';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { ROOT, SHARED_SNAPSHOTS } from './helpers';

// The OOM doctor on real OOMs captured on H200/H100 GPUs: what the snapshot says (segments rebuilt
// at the OOM event, live tensors) must agree with what PyTorch's own message says, and the remedy
// for fragmentation is the re-run that succeeded on the same GPU.
const SNAP = join(ROOT, 'test', 'fixtures', 'snapshots');
const cases = [
  { file: join(SNAP, 'frag_oom.pickle'), truth: join(SNAP, 'frag_oom.truth.json') },
  { file: join(SNAP, 'frag_oom_in_observer.pickle'), truth: join(SNAP, 'frag_oom.truth.json') },
  { file: join(SNAP, 'private_pool_oom.pickle'), truth: join(SNAP, 'private_pool_oom.truth.json') },
  { file: join(SNAP, 'demand_oom.pickle'), truth: join(SNAP, 'demand_oom.truth.json') },
  { file: join(SNAP, 'batch_oom.pickle'), truth: join(SNAP, 'batch_oom.truth.json') },
  { file: join(SHARED_SNAPSHOTS, 'oom_plain.pickle'), truth: join(SHARED_SNAPSHOTS, 'oom_plain.truth.json') },
];

describe('OOM doctor', () => {
  for (const c of cases) {
    it(`${c.file.split('/').pop()}: the snapshot's diagnosis agrees with PyTorch's message`, async () => {
      const s = await loadSnapshotFile(c.file);
      const a = analyzeDevice(s, 0);
      assert.equal(a.ooms.length, 1);
      const d = diagnoseSnapshot(s, a, a.ooms[0]!);
      const t = JSON.parse(readFileSync(c.truth, 'utf8')) as { oom?: { message: string }; message?: string };
      const [m] = parseOomMessages(t.oom?.message ?? t.message!);
      const fromMessage = diagnoseMessage(m!);
      assert.equal(d.kind, fromMessage.kind, `${renderDiagnosis(d)}\nvs the message:\n${renderDiagnosis(fromMessage)}`);
      if (d.kind === 'fragmentation') {
        // The pools' free bytes at the OOM are the message's "reserved by PyTorch but unallocated".
        const free = d.pools.filter((p) => p.poolId[0] === 0 && p.poolId[1] === 0).reduce((x, p) => x + p.freeBytes, 0);
        assert.ok(
          Math.abs(free - m!.reservedUnallocatedBytes!) <= m!.reservedUnallocatedBytes! * 0.005,
          `${free} vs ${m!.reservedUnallocatedBytes}`,
        );
        assert.ok(Math.max(...d.pools.filter((p) => p.pool === 'large').map((p) => p.largestFreeBytes)) < d.requestBytes);
      }
      assert.ok(d.remedies.length > 0 && d.remedies.every((r) => r.change && r.effect));
    });
  }

  it('a demand OOM names the line that held the memory (the forward of demand_oom.py)', async () => {
    const s = await loadSnapshotFile(join(SNAP, 'demand_oom.pickle'));
    const a = analyzeDevice(s, 0);
    const d = diagnoseSnapshot(s, a, a.ooms[0]!);
    const src = readFileSync(join(ROOT, 'test', 'gpu', 'capture', 'demand_oom.py'), 'utf8').split('\n');
    assert.equal(d.kind, 'demand');
    assert.equal(d.topLines[0]!.line, src.findIndex((l) => l.includes('return model(batch)')) + 1);
    assert.ok(d.remedies.some((r) => r.id === 'smaller-batch'));
    // Checkpointing names the line whose module calls hold the activations, and frees all but the
    // largest of them: one layer's output, batch × width fp32 values.
    const t = JSON.parse(readFileSync(join(SNAP, 'demand_oom.truth.json'), 'utf8')) as { batch: number; width: number };
    const ck = d.remedies.find((r) => r.id === 'checkpoint')!;
    assert.deepEqual(ck.line, { file: d.topLines[0]!.file, line: d.topLines[0]!.line });
    assert.match(ck.effect, new RegExp(`all but the largest, ${formatBytes(t.batch * t.width * 4).replace('.', '\\.')},`));
  });

  it("the OOM's segment map is the one PyTorch's memory_viz draws of the same capture", async () => {
    const s = await loadSnapshotFile(join(SNAP, 'frag_oom.pickle'));
    const a = analyzeDevice(s, 0);
    const d = diagnoseSnapshot(s, a, a.ooms[0]!);
    const t = JSON.parse(readFileSync(join(SNAP, 'frag_oom.truth.json'), 'utf8')) as { memory_viz_folded: string; memory_reserved: number };
    // memory_viz's folded stacks list one segment's blocks bottom-up, then its unaccounted gap.
    const runs: [string, number][] = [];
    for (const line of t.memory_viz_folded.trim().split('\n')) {
      const state = /;active_allocated;/.test(line) ? 'allocated' : /;active_pending_free;/.test(line) ? 'pending' : 'free';
      const b = Number(line.slice(line.lastIndexOf(' ') + 1));
      const last = runs.at(-1);
      if (last && last[0] === state) last[1] += b;
      else runs.push([state, b]);
    }
    assert.equal(d.segmentMap!.total, 1);
    assert.equal(d.segmentMap!.rows[0]!.size, t.memory_reserved);
    assert.deepEqual(d.segmentMap!.rows[0]!.runs, runs);
    // No free run holds the request: the page says so.
    assert.ok(runs.every(([st, b]) => st !== 'free' || b < d.requestBytes));
    assert.deepEqual(doctorFor(s, a).ooms[0]!.segments, d.segmentMap);
  });

  it("the batch estimate against a sweep on an H100: fixed part = the sweep's intercept, the scaled part a lower bound of its slope, the bound holds", async () => {
    const s = await loadSnapshotFile(join(SNAP, 'batch_oom.pickle'));
    const a = analyzeDevice(s, 0);
    const d = diagnoseSnapshot(s, a, a.ooms[0]!);
    const t = JSON.parse(readFileSync(join(SNAP, 'batch_oom.truth.json'), 'utf8')) as { peaks: Record<string, number>; oom_batch: number };
    // Least squares through PyTorch's peaks of the batches that ran: peak = F + k × batch.
    const pts = Object.entries(t.peaks).map(([b, p]) => [Number(b), p] as const);
    const mx = pts.reduce((x, [b]) => x + b, 0) / pts.length;
    const my = pts.reduce((x, [, p]) => x + p, 0) / pts.length;
    const k = pts.reduce((x, [b, p]) => x + (b - mx) * (p - my), 0) / pts.reduce((x, [b]) => x + (b - mx) ** 2, 0);
    const F = my - k * mx;
    const b = d.batch!;
    assert.equal(d.kind, 'demand');
    assert.ok(Math.abs(b.fixedBytes - F) <= 0.01 * F, `fixed ${b.fixedBytes} vs intercept ${F}`);
    const perSample = b.scaledBytes / t.oom_batch;
    assert.ok(perSample <= k && perSample >= 0.9 * k, `per sample ${perSample} vs slope ${k}`);
    // An upper bound on the batch that fits: above every batch that ran, above the sweep's own answer.
    const ran = Math.max(...pts.map(([x]) => x));
    assert.ok(b.fraction * t.oom_batch >= ran);
    assert.ok(b.fraction * t.oom_batch >= (b.availableBytes - F) / k);
    assert.ok(b.fraction < 1);
  });

  it('memory taken outside PyTorch (cuMemAlloc in a Headroom run on an H100): the run folder gives the device total, the verdict is non-PyTorch as the message says', async () => {
    const dir = join(ROOT, 'test', 'fixtures', 'runs', 'non_pytorch_oom');
    const path = join(dir, 'snapshot-oom-1.pickle');
    const t = JSON.parse(readFileSync(join(dir, 'truth.json'), 'utf8')) as {
      pid: number;
      total: number;
      free: number;
      reserved: number;
      device_used: number;
      outside_bytes: number;
      message: string;
      processes: { pid: number; used: number }[];
    };
    const s = await loadSnapshotFile(path);
    const a = analyzeDevice(s, 0);
    const total = deviceTotalBeside(path, 0);
    assert.equal(total, t.total, 'the agent recorded what torch.cuda.get_device_properties says');
    const d = diagnoseSnapshot(s, a, a.ooms[0]!, deviceFactsBeside(path, 0));
    assert.equal(d.kind, 'non-pytorch');
    const fromMessage = diagnoseMessage(parseOomMessages(t.message)[0]!);
    assert.equal(fromMessage.kind, 'non-pytorch');
    // The other process beside the run, as pynvml listed it inside the workload at the OOM; the
    // run read it through the NVML addon when the agent reported the OOM.
    const others = t.processes.filter((p) => p.pid !== t.pid);
    assert.equal(others.length, 1);
    assert.deepEqual(d.others, others);
    assert.deepEqual(
      fromMessage.others?.map((p) => p.pid),
      others.map((p) => p.pid),
      'the message names it too',
    );
    assert.match(d.why, new RegExp(`pid ${others[0]!.pid} \\(`));
    assert.ok(d.remedies[0]!.change.includes(`pid ${others[0]!.pid}`));
    // CUDA's figures read right after the OOM: total − free − reserved (NVML adds the driver's own reserve on top).
    assert.ok(
      Math.abs(d.outsideBytes! - (t.total - t.free - t.reserved)) <= 2 ** 20,
      `${d.outsideBytes} vs ${t.total - t.free - t.reserved}`,
    );
    assert.ok(d.outsideBytes! >= t.outside_bytes && d.outsideBytes! <= t.device_used - t.reserved);
    // The snapshot alone (no run folder) knows the free bytes but not the total: no such verdict.
    assert.notEqual(diagnoseSnapshot(s, a, a.ooms[0]!).kind, 'non-pytorch');
  });

  it('a demand OOM splits the need into what scales with the batch and what does not, as PyTorch counted it', async () => {
    const s = await loadSnapshotFile(join(SNAP, 'demand_oom.pickle'));
    const a = analyzeDevice(s, 0);
    const d = diagnoseSnapshot(s, a, a.ooms[0]!);
    const t = JSON.parse(readFileSync(join(SNAP, 'demand_oom.truth.json'), 'utf8')) as {
      width: number;
      max_memory_allocated: number;
      max_memory_reserved: number;
      oom: { alloc: number; device_free: number };
    };
    const near = (x: number, y: number, what: string) => assert.ok(Math.abs(x - y) <= 0.01 * y, `${what}: ${x} vs ${y}`);
    const b = d.batch!;
    // Made before the failing iteration: the 12 Linear layers' weights and biases (fp32).
    near(b.fixedBytes, 12 * (t.width * t.width + t.width) * 4, 'fixed = the parameters');
    near(b.fixedBytes + b.scaledBytes, t.max_memory_allocated + t.oom.alloc, 'fixed + scaled = allocated at the OOM + the request');
    // PyTorch could have had what it reserved plus what the device still had free.
    near(b.availableBytes, t.max_memory_reserved + t.oom.device_free, 'available');
    const fits = (t.max_memory_reserved + t.oom.device_free - b.fixedBytes) / (t.max_memory_allocated + t.oom.alloc - b.fixedBytes);
    const remedy = d.remedies.find((r) => r.id === 'smaller-batch')!;
    assert.equal(remedy.title, `Reduce the batch size below ${Math.floor(fits * 100)}%`);
    // The forward had made its activations before the request: checkpointing is offered for them.
    assert.ok(d.remedies.some((r) => r.id === 'checkpoint'));
  });

  it('fragmentation: the remedy is the re-run that succeeded on the same GPU (and the plain re-run failed)', async () => {
    const s = await loadSnapshotFile(join(SNAP, 'frag_oom.pickle'));
    const a = analyzeDevice(s, 0);
    const d = diagnoseSnapshot(s, a, a.ooms[0]!);
    const conf = d.remedies[0]!.allocConf!;
    const expandable = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'oom', 'frag_rerun_expandable.json'), 'utf8')) as {
      ok: boolean;
      alloc_conf: string;
    };
    const plain = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'oom', 'frag_rerun.json'), 'utf8')) as {
      ok: boolean;
      message: string;
    };
    assert.equal(
      Object.entries(conf)
        .map(([k, v]) => `${k}:${v}`)
        .join(','),
      expandable.alloc_conf,
    );
    assert.deepEqual([expandable.ok, plain.ok], [true, false]);
    // The second remedy, max_split_size_mb with N from the segment map, also succeeded there.
    const split = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'oom', 'frag_rerun_max_split.json'), 'utf8')) as {
      ok: boolean;
      alloc_conf: string;
    };
    assert.equal(
      Object.entries(d.remedies[1]!.allocConf!)
        .map(([k, v]) => `${k}:${v}`)
        .join(','),
      split.alloc_conf,
    );
    assert.equal(split.ok, true);
    assert.equal(diagnoseMessage(parseOomMessages(plain.message)[0]!).kind, 'fragmentation', 'the re-run without it failed the same way');
    // Both remedies were replayed on this run (core/allocator/predict.ts): each avoids the OOM under
    // a limit no larger than the cap the successful H100 reruns ran under (1,636 MiB).
    for (const r of d.remedies.slice(0, 2)) {
      const m = /does not happen if the memory fraction leaves PyTorch at least ([\d.]+) (MiB|GiB)/.exec(r.effect);
      assert.ok(m, r.effect);
      assert.ok(Number(m[1]) * (m[2] === 'GiB' ? 1024 : 1) <= 1636, r.effect);
    }
  });

  it('a pasted message under a memory fraction is a cap; one with the device full and little unallocated is demand', () => {
    const cap = parseOomMessages(readFileSync(join(SHARED_SNAPSHOTS, 'oom_fraction_message.txt'), 'utf8'));
    assert.equal(diagnoseMessage(cap[0]!).kind, 'cap');
    const full = (JSON.parse(readFileSync(join(SNAP, 'demand_oom.truth.json'), 'utf8')) as { oom: { message: string } }).oom.message;
    const d = diagnoseMessage(parseOomMessages(full)[0]!);
    assert.equal(d.kind, 'demand');
    assert.match(renderDiagnosis(d), /^OOM: demand — /);
  });

  it('the summary page gets each OOM with its remedies; a remedy button comes back as a validated message', async () => {
    const s = await loadSnapshotFile(join(SNAP, 'frag_oom.pickle'));
    const doc = doctorFor(s, analyzeDevice(s, 0));
    assert.deepEqual(
      doc.ooms.map((o) => o.kind),
      ['fragmentation'],
    );
    const conf = doc.ooms[0]!.remedies.find((r) => r.allocConf)!.allocConf!;
    assert.ok(isFromWebview({ type: 'remedy', allocConf: conf }));
    // Whatever a page sends must stay an allocator setting, never something a shell or env could misread.
    for (const bad of [{ expandable_segments: 'True; rm -rf ~' }, { 'a b': 'x' }, { x: 1 }, null])
      assert.equal(isFromWebview({ type: 'remedy', allocConf: bad }), false);
    assert.ok(isFromWebview({ type: 'remedy', capGib: 79.18 }));
    for (const bad of [0, -1, Number.NaN, Infinity, '24', 1e9])
      assert.equal(isFromWebview({ type: 'remedy', capGib: bad }), false, String(bad));
    assert.equal(isFromWebview({ type: 'remedy' }), false, 'a remedy changes something');
  });
});
