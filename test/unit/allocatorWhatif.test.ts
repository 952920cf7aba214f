import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { applyAllocConf } from '../../extension/src/core/allocator/confString';
import { configFrom } from '../../extension/src/core/allocator/config';
import { predictAllocator } from '../../extension/src/core/allocator/predict';
import { replayAllocator } from '../../extension/src/core/allocator/replay';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { ROOT } from './helpers';

// Predictions against reality: four workloads (a transformer over varying lengths, a ResNet over
// varying image sizes, Faster R-CNN over varying images, two CUDA streams) recorded once on an H100
// with the default settings, then rerun there under each other setting
// (test/gpu/capture/whatif/run.sh); each rerun's JSON holds PyTorch's own peaks.
const DIR = join(ROOT, 'test', 'fixtures', 'whatif');
const workloads = ['transformer', 'cnn', 'detection', 'two_streams'];

describe('what-if predictions against reruns on an H100', () => {
  for (const w of workloads) {
    it(`${w}: the replay is exact, and each setting's predicted reserved peak is the rerun's`, async () => {
      const s = await loadSnapshotFile(join(DIR, `${w}.pickle`));
      const base = JSON.parse(readFileSync(join(DIR, `${w}-default.json`), 'utf8')) as { reserved_peak: number; allocated_peak: number };
      const r = replayAllocator(s, 0);
      assert.ok(r.supported && r.mismatchCount === 0);
      assert.equal(r.allocatedPeak, base.allocated_peak);
      const reruns = readdirSync(DIR).filter((f) => f.startsWith(`${w}-`) && !f.endsWith('-default.json'));
      assert.ok(reruns.length >= 4);
      for (const f of reruns) {
        const rerun = JSON.parse(readFileSync(join(DIR, f), 'utf8')) as { alloc_conf: string; reserved_peak: number; allocated_peak: number };
        const p = predictAllocator(s, 0, applyAllocConf(configFrom(s.allocatorSettings), rerun.alloc_conf));
        assert.ok(p.supported, f);
        const err = Math.abs(p.reservedPeak - rerun.reserved_peak) / rerun.reserved_peak;
        assert.ok(err <= 0.03, `${f}: predicted ${p.reservedPeak}, rerun ${rerun.reserved_peak}`);
        assert.equal(p.reservedPeak, rerun.reserved_peak, `${f}: to the byte`);
        assert.equal(p.allocatedPeak, rerun.allocated_peak, `${f}: allocated`);
      }
    });
  }
});
