// Headroom's own frames (the agent's backward() wrapper) appear in no output: a run recorded through
// `headroom run` on an H100 has them in its snapshot's stacks.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { attributeAt } from '../../extension/src/core/analysis/attributeAt';
import { readRun } from '../../extension/src/core/run/runFolder';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { ROOT } from './helpers';

const RUN = join(ROOT, 'test', 'fixtures', 'runs', 'lm_train');
const SNAP = join(RUN, 'snapshot-peak.pickle');

describe("Headroom's own frames", () => {
  it('are in the recorded stacks (the case is real)', () => {
    assert.ok(readFileSync(SNAP).includes('headroom_agent/backward.py'));
  });

  it('appear in no line, bucket, site or stack of the analysis', async () => {
    const s = await loadSnapshotFile(SNAP);
    const p = readRun(RUN).processes[0]!;
    const a = analyzeDevice(s, 0, undefined, p.backward);
    for (let st = 1; st < s.stacks.size; st++) for (const f of s.stacks.get(st)) assert.doesNotMatch(s.frames.fileOf(f), /headroom_agent/);
    const at = attributeAt(s, a, a.replay.peak);
    assert.doesNotMatch(JSON.stringify(at), /headroom_agent/);
    const bw = at.buckets.find((b) => b.kind === 'backward');
    assert.ok(bw && bw.sites?.length, 'the backward pass is credited to a call site');
    for (const site of bw.sites ?? []) assert.match(site.file, /lm_train\.py$/);
  });

  it('appear nowhere in headroom analyze --json', async () => {
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'analyze', SNAP, '--json', '--top', '0'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /headroom_agent/);
  });
});
