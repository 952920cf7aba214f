import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { explainOomText } from '../../extension/src/core/diagnose/explainText';
import { withRunEvidence } from '../../extension/src/core/diagnose/oomEvidence';
import { renderDiagnosis, WIDTH } from '../../extension/src/core/diagnose/oomText';
import { ROOT } from './helpers';

// The doctor's traps, each a message in PyTorch's own words with the figures that make the trap:
// the verdict and the remedies must follow from proportions, never from one figure alone.
const one = (text: string) => {
  const { found } = explainOomText(text);
  assert.equal(found.length, 1);
  return found[0]!.diagnosis;
};
const ids = (text: string) => one(text).remedies.map((r) => r.id);
const modern = (tried: string, total: string, free: string, procs: string, alloc: string, unalloc: string, allowed = '') =>
  `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate ${tried}. GPU 0 has a total capacity of ${total} of which ${free} is free. ${procs}${allowed ? `${allowed} allowed; ` : ''}Of the allocated memory ${alloc} is allocated by PyTorch, and ${unalloc} is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.`;
const legacy = (tried: string, total: string, alloc: string, free: string, last: string) =>
  `RuntimeError: CUDA out of memory. Tried to allocate ${tried} (GPU 0; ${total} total capacity; ${alloc} already allocated; ${free} free; ${last})`;

describe('the OOM doctor on a message: traps', () => {
  it('own pid in a container: "Process N" holding the reserve plus a context is this process, never "stop pid N"', () => {
    const text = modern('128.00 MiB', '79.33 GiB', '16.00 MiB', 'Process 37008 has 79.29 GiB memory in use. ', '69.59 GiB', '118.90 MiB');
    const d = one(text);
    assert.notEqual(d.kind, 'non-pytorch');
    assert.equal(d.message!.facts.selfPid, 37008);
    assert.ok(
      d.remedies.every((r) => !r.change.includes('37008')),
      renderDiagnosis(d),
    );
    // Beside another program that holds half the device: that one is named, this one still not.
    const shared = one(
      modern(
        '128.00 MiB',
        '79.33 GiB',
        '16.00 MiB',
        'Process 37008 has 30.20 GiB memory in use. Process 555 has 48.90 GiB memory in use. ',
        '29.59 GiB',
        '118.90 MiB',
      ),
    );
    assert.equal(shared.kind, 'non-pytorch');
    const free = shared.remedies.find((r) => r.id === 'free-device')!;
    assert.match(free.change, /pid 555\b/);
    assert.doesNotMatch(free.change, /37008/);
  });

  it('legacy "cached" is the slack itself: positive figures, fragmentation when it is a real share', () => {
    const d = one(legacy('1.72 GiB', '10.76 GiB', '4.01 GiB', '356.00 MiB', '5.54 GiB cached'));
    assert.equal(d.kind, 'fragmentation');
    assert.equal(d.message!.facts.slack, Math.round(5.54 * 2 ** 30));
    assert.equal(d.message!.facts.reserved, Math.round(4.01 * 2 ** 30) + Math.round(5.54 * 2 ** 30));
    assert.doesNotMatch(renderDiagnosis(d), /-\d/);
  });

  it('other programs in the older formats: total − free − reserved', () => {
    const d = one(legacy('20.00 MiB', '7.79 GiB', '2.10 GiB', '4.00 MiB', '2.20 GiB reserved in total by PyTorch'));
    assert.equal(d.kind, 'non-pytorch');
    assert.ok(d.message!.facts.outside! > 5 * 2 ** 30);
    assert.ok(
      ids(legacy('20.00 MiB', '7.79 GiB', '2.10 GiB', '4.00 MiB', '2.20 GiB reserved in total by PyTorch')).includes('free-device'),
    );
  });

  it('small slack next to the device is demand, not fragmentation', () => {
    // A model four times too big for a 6 GiB card: 30 MiB of slack is more than the 20 MiB asked.
    const d = one(legacy('20.00 MiB', '5.80 GiB', '5.10 GiB', '2.00 MiB', '5.13 GiB reserved in total by PyTorch'));
    assert.equal(d.kind, 'demand');
    assert.match(d.why, /too small a share/);
  });

  it('a request larger than the device is demand, whatever else the figures say', () => {
    const d = one(modern('130674.91 GiB', '79.15 GiB', '37.61 GiB', '', '28.00 GiB', '20.00 GiB'));
    assert.equal(d.kind, 'demand');
    assert.deepEqual(
      d.remedies.map((r) => r.id),
      ['fix-size', 'record'],
    );
    assert.equal(one('CUDA out of memory. Tried to allocate more than 1EB memory.').kind, 'demand');
  });

  it('no figures: unknown with the reason, no advice about a "0 B request"', () => {
    for (const text of [
      'RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/generic/THCStorage.cu:58',
      'RuntimeError: CUDA error: out of memory\nCUDA kernel errors might be asynchronously reported',
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a tot',
    ]) {
      const d = one(text);
      assert.equal(d.kind, 'unknown');
      assert.deepEqual(
        d.remedies.map((r) => r.id),
        ['record'],
      );
      assert.doesNotMatch(renderDiagnosis(d), /\b0 B\b/);
    }
  });

  it('free memory above the request with no limit printed contradicts an allocator OOM: unknown', () => {
    assert.equal(one(legacy('12.50 MiB', '10.92 GiB', '8.57 MiB', '9.28 GiB', '4.68 MiB cached')).kind, 'unknown');
  });

  it('a cap: raising it is the remedy; with its slack able to serve the request, fragmentation (the GPU captures)', () => {
    const cap = one(
      modern(
        '256.00 MiB',
        '139.80 GiB',
        '136.25 GiB',
        'Including non-PyTorch memory, this process has 3.54 GiB memory in use. ',
        '2.81 GiB',
        '1024.00 KiB',
        '3.00 GiB',
      ),
    );
    assert.equal(cap.kind, 'cap');
    assert.ok(cap.remedies.some((r) => r.id === 'memory-cap'));
    const frag = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'oom', 'frag_rerun.json'), 'utf8')) as { message: string };
    assert.equal(one(frag.message).kind, 'fragmentation');
  });

  it('the traceback decides: checkpointing for training, not for inference; expandable_segments not when already on', () => {
    const msg = modern(
      '2.00 GiB',
      '23.65 GiB',
      '1.23 GiB',
      'Including non-PyTorch memory, this process has 22.41 GiB memory in use. ',
      '21.40 GiB',
      '600.00 MiB',
    );
    assert.ok(ids(`  File "train.py", line 80, in <module>\n    loss.backward()\n${msg}`).includes('checkpoint'));
    assert.ok(!ids(`  File "serve.py", line 12, in <module>\n    out = model.generate(**inputs)\n${msg}`).includes('checkpoint'));
    assert.ok(ids(`batch_size = 64\n  File "train.py", line 80\n    loss.backward()\n${msg}`).includes('smaller-batch'));
    const frag = legacy('1.72 GiB', '10.76 GiB', '4.01 GiB', '356.00 MiB', '5.54 GiB cached');
    assert.deepEqual(ids(frag).slice(0, 2), ['expandable-segments', 'max-split-size']);
    assert.ok(!ids(`export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n${frag}`).includes('expandable-segments'));
  });

  it('the report reads at 100 columns, each remedy on its own lines', () => {
    const text = renderDiagnosis(one(legacy('1.72 GiB', '10.76 GiB', '4.01 GiB', '356.00 MiB', '5.54 GiB cached')));
    for (const l of text.trimEnd().split('\n')) assert.ok(l.length <= WIDTH || !l.trim().includes(' '), l);
    assert.doesNotMatch(text, /True: PYTORCH_CUDA_ALLOC_CONF/);
    assert.doesNotMatch(text, /headroom\.run\./, 'no editor setting in text the CLI prints');
    assert.match(text, /\n {2}- Re-run with expandable_segments:True\n {6}change: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True/);
  });

  it('runs as evidence: the one that recorded the same OOM lends its snapshot, one that cannot be read is passed over among several, refused alone', async () => {
    const run = join(ROOT, 'test', 'fixtures', 'runs', 'non_pytorch_oom');
    const message = (JSON.parse(readFileSync(join(run, 'truth.json'), 'utf8')) as { message: string }).message;
    const empty = mkdtempSync(join(tmpdir(), 'headroom-runs-'));
    const [e] = await withRunEvidence(explainOomText(message).found, empty, run);
    assert.match(e!.diagnosis.evidence!, /^non_pytorch_oom\/snapshot-oom-1\.pickle/);
    assert.ok(e!.diagnosis.pools.length > 0, 'the snapshot’s pools');
    assert.equal(e!.diagnosis.message!.facts.request, 2 ** 30, 'the message’s figures stay beside it');
    await assert.rejects(withRunEvidence(explainOomText(message).found, empty), /not a Headroom run folder/);
    // Another OOM (another request) is not this run's.
    const [other] = await withRunEvidence(explainOomText(message.replace('1024.00 MiB', '512.00 MiB')).found, run);
    assert.equal(other!.diagnosis.evidence, undefined);
  });
});
