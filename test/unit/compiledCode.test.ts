// torch.compile's generated code (Inductor's cache files) is never a user line: on a compiled
// transformer captured on an H100, the peak's memory lands on the model's own source lines.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { attributeAt } from '../../extension/src/core/analysis/attributeAt';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { ROOT } from './helpers';

const SNAP = join(ROOT, 'test', 'fixtures', 'leaks', 'matrix', 'transformer_compiled.pickle.gz');

describe('compiled code', () => {
  it('Inductor-generated files are in the stacks, and never a user line or a leak line', async () => {
    const s = await loadSnapshotFile(SNAP);
    let generated = 0;
    for (let f = 0; f < s.frames.size; f++) if (/torchinductor_[^/]*\//.test(s.frames.fileOf(f))) generated++;
    assert.ok(generated > 0, 'the capture has generated frames');
    const a = analyzeDevice(s, 0);
    const at = attributeAt(s, a, a.replay.peak);
    assert.ok(at.lines.length > 0);
    for (const l of at.lines) assert.doesNotMatch(l.file, /torchinductor_/);
    // The model's own forward lines (leak_cases.py's Block and LM) hold memory at the peak.
    assert.ok(
      at.lines.some((l) => l.file.endsWith('leak_cases.py') && /forward/.test(l.name) && l.selfBytes > 0),
      JSON.stringify(at.lines.slice(0, 5).map((l) => `${l.file}:${l.line} ${l.name}`)),
    );
  });
});
