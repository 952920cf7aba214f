import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { describeLeak, detectLeaks, theilSen } from '../../extension/src/core/diagnose/leaks';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { ROOT } from './helpers';

// Runtime leak detection on loops captured on an H100 (test/gpu/capture/leaks.py), against the
// figures the capture script measured itself: memory_allocated() at the same point of every
// iteration, and the line that creates what is kept.
const DIR = join(ROOT, 'test', 'fixtures', 'leaks');
interface Truth {
  iterations: number;
  true_growth_per_iteration: number;
  lines: Record<string, number>;
}
async function load(name: string) {
  const s = await loadSnapshotFile(join(DIR, `${name}.pickle`));
  const truth = JSON.parse(readFileSync(join(DIR, `${name}.truth.json`), 'utf8')) as Truth;
  return { report: detectLeaks(s, analyzeDevice(s, 0)), truth };
}
const within5 = (x: number, y: number) => Math.abs(x - y) <= 0.05 * Math.abs(y);

describe('runtime leak detection', () => {
  it('a list-append leak in a training loop: the line that creates the kept tensors, growth within 5 %', async () => {
    const { report, truth } = await load('leak_append');
    assert.ok(truth.iterations >= 10);
    assert.equal(report.basis, 'optimizer step', 'the optimizer-step annotations are in the capture');
    assert.equal(report.boundaries.length, truth.iterations, 'one boundary per optimizer step');
    assert.ok(report.leaking, describeLeak(report).join('\n'));
    assert.ok(
      within5(report.bytesPerIteration, truth.true_growth_per_iteration),
      `${report.bytesPerIteration} vs ${truth.true_growth_per_iteration}`,
    );
    assert.equal(report.lines[0]!.line, truth.lines.out);
    assert.ok(within5(report.lines[0]!.bytesPerIteration, truth.true_growth_per_iteration));
    assert.match(describeLeak(report)[1]!, new RegExp(`leaks\\.py:${truth.lines.out} \\(train\\) keeps 1 tensor of 250 KiB per iteration`));
    assert.ok(report.moment && report.moment.index === report.boundaries.at(-1));
  });

  it('every way of finding iterations (optimizer steps, backward passes, a repeating line) measures the same leak', async () => {
    const s = await loadSnapshotFile(join(DIR, 'leak_append.pickle'));
    const truth = JSON.parse(readFileSync(join(DIR, 'leak_append.truth.json'), 'utf8')) as Truth;
    const a = analyzeDevice(s, 0);
    for (const basis of ['optimizer step', 'backward', 'repeating line'] as const) {
      const r = detectLeaks(s, a, { basis });
      assert.equal(r.basis, basis);
      assert.ok(r.leaking && within5(r.bytesPerIteration, truth.true_growth_per_iteration), `${basis}: ${describeLeak(r).join(' ')}`);
      assert.equal(r.lines[0]!.line, truth.lines.out);
    }
  });

  it('a clean training loop of 50 iterations: no leak', async () => {
    const { report, truth } = await load('clean_train');
    assert.ok(truth.iterations >= 50 && truth.true_growth_per_iteration === 0);
    assert.equal(report.basis, 'optimizer step');
    assert.equal(report.boundaries.length, truth.iterations);
    assert.equal(report.leaking, false, describeLeak(report).join('\n'));
    assert.equal(report.bytesPerIteration, 0);
  });

  it('total_loss += loss after backward costs nothing on the GPU; the same in an eval loop keeps whole graphs', async () => {
    const train = await load('total_loss_train');
    assert.equal(train.report.leaking, false);
    assert.equal(train.report.bytesPerIteration, train.truth.true_growth_per_iteration);
    const ev = await load('total_loss_eval');
    assert.equal(ev.report.basis, 'repeating line', 'no backward: iterations from the line that runs once each');
    assert.ok(ev.report.leaking);
    assert.ok(
      within5(ev.report.bytesPerIteration, ev.truth.true_growth_per_iteration),
      `${ev.report.bytesPerIteration} vs ${ev.truth.true_growth_per_iteration}`,
    );
    const kept = ev.report.lines.reduce((x, l) => x + l.bytesPerIteration, 0);
    assert.ok(within5(kept, ev.truth.true_growth_per_iteration), 'the lines account for the growth');
    for (const l of ev.report.lines)
      assert.ok(
        l.line >= ev.truth.lines.eval_out! && l.line < ev.truth.lines.acc_eval!,
        `${l.line}: created in the loop before the accumulation`,
      );
  });

  it('Theil–Sen ignores a one-off jump that a least-squares line would follow', () => {
    const ys = [0, 10, 20, 30, 40, 50, 60, 70, 5000, 90, 100];
    assert.equal(theilSen(ys), 10);
    assert.equal(theilSen([7, 7, 7, 7, 7, 7]), 0);
  });

  it('an eval loop that leaks beside a clean training loop (the demo): found on its own iterations', async () => {
    const s = await loadSnapshotFile(join(ROOT, 'test', 'fixtures', 'snapshots', 'leaky_demo.pickle'));
    const r = detectLeaks(s, analyzeDevice(s, 0));
    const src = readFileSync(join(ROOT, 'demo', 'workspace', 'train_leaky.py'), 'utf8').split('\n');
    const logits = src.findIndex((l) => l.includes('logits = model(x)')) + 1;
    assert.equal(r.basis, 'repeating line');
    assert.ok(r.leaking, describeLeak(r).join('\n'));
    assert.equal(r.lines[0]!.line, logits);
    const batches = Number(/evaluate\(model, make_batches\((\d+)\)\)/.exec(src.join('\n'))![1]);
    assert.equal(r.boundaries.length, batches - 1, 'one boundary per eval batch after the first');
  });
});
