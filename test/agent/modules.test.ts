// Module scopes (headroom_agent/modules.py) on real torch autograd, CPU: torch's metadata setter
// is replaced by a recorder, since a CPU build has no CUDA allocator to stamp.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { before, describe, it } from 'node:test';
import { DEBIAN_PY, ensureDebianTorch } from './pythons';

const ROOT = resolve(__dirname, '..', '..');

describe('module scopes (the agent, real torch autograd)', () => {
  let r: { same_loss: boolean; same_grads: boolean; leaf_hooks: number; calls: string[] };
  before(() => {
    ensureDebianTorch();
    const p = spawnSync(DEBIAN_PY, [join(__dirname, 'workloads', 'scopes.py'), join(ROOT, 'extension', 'agent')], { encoding: 'utf8' });
    assert.equal(p.status, 0, p.stderr);
    r = JSON.parse(p.stdout);
  });

  it('change nothing: the same loss and gradients, and no hook left on a parameter', () => {
    assert.ok(r.same_loss);
    assert.ok(r.same_grads);
    assert.equal(r.leaf_hooks, 0);
  });

  it('name modules by their path in the model, found from a child called directly, behind the workload’s own string', () => {
    const forward = r.calls.filter((c) => c.includes('\x1ehr:f:'));
    for (const path of ['blocks', 'blocks.0.fc', 'blocks.1.act', 'head'])
      assert.ok(forward.includes(`step=1\x1ehr:f:${path}`), JSON.stringify(forward));
    for (const c of r.calls) assert.ok(c.startsWith('step=1'), JSON.stringify(c));
  });

  it('credit backward to the module whose gradient is being computed, last layer first', () => {
    const backward = r.calls.filter((c) => c.includes('\x1ehr:b:')).map((c) => c.split('\x1ehr:b:')[1]!);
    const at = (p: string) => backward.indexOf(p);
    for (const p of ['head', 'blocks.1.fc', 'blocks.0.fc']) assert.ok(at(p) >= 0, JSON.stringify(backward));
    assert.ok(at('head') < at('blocks.1.fc') && at('blocks.1.fc') < at('blocks.0.fc'), JSON.stringify(backward));
  });
});
