// torch.compile's generated code on nanoGPT compiled (H100, torch 2.11): torch itself puts the
// model's source frames right after each generated frame (Inductor's line maps, used when the
// traceback is symbolized; test/gpu/capture/frameworks/probe_fx.py). Headroom's lines follow them:
// what generated code allocates lands on the model's forward lines, never on a generated file.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { Action } from '../../extension/src/core/snapshot/actions';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { traceOf } from '../../extension/src/core/snapshot/model';
import { ROOT } from './helpers';

const SNAP = join(ROOT, 'test', 'fixtures', 'modules', 'nanogpt_compiled', 'snapshot-peak.pickle.gz');

describe('compiled code and its source lines', () => {
  it('bytes allocated in generated code are credited to the model’s forward lines', async () => {
    const s = await loadSnapshotFile(SNAP);
    const a = analyzeDevice(s, 0);
    const t = traceOf(s, 0);
    let generated = 0;
    let forward = 0;
    for (let i = 0; i < t.length; i++) {
      if (t.action[i] !== Action.Alloc) continue;
      const frames = s.stacks.get(t.stack[i]!);
      if (![...frames].some((f) => /\/torchinductor_[^/]*\//.test(s.frames.fileOf(f)))) continue;
      generated += t.size[i]!;
      const u = a.classifier.firstUser(frames);
      assert.ok(u >= 0, 'a user line');
      assert.doesNotMatch(s.frames.fileOf(u), /torchinductor_/);
      if (s.frames.fileOf(u).endsWith('/nanogpt.py') && s.frames.nameOf(u) === 'forward') forward += t.size[i]!;
    }
    assert.ok(generated > 0, 'the capture ran generated code');
    assert.ok(forward >= 0.9 * generated, `${forward} of ${generated} bytes on forward lines`);
  });
});
