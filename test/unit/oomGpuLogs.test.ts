import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { explainOomText } from '../../extension/src/core/diagnose/explainText';
import { ROOT } from './helpers';

// Logs of real workloads that died of an OOM on an H100 under `headroom run`
// (test/gpu/oomMessages.gpu.test.ts with HEADROOM_OOM_OUT): each .json holds the verdict the
// snapshot taken at that OOM got there. The message alone, read here, must get the same.
const DIR = join(ROOT, 'test', 'fixtures', 'oom', 'gpu');

describe('the OOM doctor on the logs of real GPU runs', () => {
  const cases = readdirSync(DIR).filter((f) => f.endsWith('.json'));
  it('there are captures to check', () => assert.ok(cases.length >= 4));
  for (const f of cases) {
    it(`${f.replace('.json', '')}: the message's verdict is the snapshot's`, () => {
      const truth = JSON.parse(readFileSync(join(DIR, f), 'utf8')) as { snapshot: string; workload: string[] };
      const { found } = explainOomText(readFileSync(join(DIR, f.replace('.json', '.log')), 'utf8'));
      assert.ok(found.length >= 1);
      const d = found.at(-1)!.diagnosis;
      assert.equal(d.kind, truth.snapshot, d.why);
      // A training loop's traceback (the MLP, the Trainer) offers checkpointing; the others do not need it.
      if (truth.snapshot === 'demand' && /demand|hf_trainer/.test(truth.workload.join(' ')))
        assert.ok(
          d.remedies.some((r) => r.id === 'checkpoint'),
          JSON.stringify(d.remedies.map((r) => r.id)),
        );
    });
  }
});
