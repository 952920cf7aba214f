// Parameter names for gradients and optimizer state (headroom_agent/params.py) on real torch
// autograd and Adam, CPU: a nested LM with a tied weight, five steps. Debian's torch (1.13) lacks
// torch 2.x's global hooks, so the workload gives it them (workloads/hooks_polyfill.py, called where
// 2.x calls them); the GPU test (test/gpu/params.gpu.test.ts) runs the real ones. The truth comes
// from the workload itself: named_parameters() and each tensor's storage right after each step.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { before, describe, it } from 'node:test';
import { readParamsFile } from '../../extension/src/core/run/paramsFile';
import type { ParamRecords } from '../../extension/src/core/run/paramsFile';
import { DEBIAN_PY, ensureDebianTorch } from './pythons';

const ROOT = resolve(__dirname, '..', '..');
const AGENT = join(ROOT, 'extension', 'agent');
const SCRIPT = join(__dirname, 'workloads', 'params_train.py');

interface Truth {
  names: string[];
  steps: { t0: number; t1: number; tensors: { name: string; kind: string; key: string | null; at: [number, number] }[] }[];
}

function train(env: NodeJS.ProcessEnv, truth: string) {
  const base = { ...process.env };
  delete base.PYTHONPATH;
  delete base.HEADROOM_AGENT;
  const r = spawnSync(DEBIAN_PY, [SCRIPT, AGENT, truth], { encoding: 'utf8', env: { ...base, ...env }, cwd: join(__dirname, 'workloads') });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('parameter names for gradients and optimizer state (the agent, real torch)', () => {
  let plain: ReturnType<typeof train>;
  let agent: ReturnType<typeof train>;
  let truth: Truth;
  let rec: ParamRecords;
  let raw: { type: string }[];
  before(() => {
    ensureDebianTorch();
    const dir = mkdtempSync(join(tmpdir(), 'headroom-params-'));
    plain = train({}, join(dir, 'plain.json'));
    const env = {
      HEADROOM_AGENT: '1',
      HEADROOM_RUNS_DIR: join(dir, 'runs'),
      HEADROOM_RUN_ID: 'r',
      HEADROOM_RECORD: 'full',
      HEADROOM_PARAMS_CPU: '1',
    };
    agent = train(env, join(dir, 'truth.json'));
    truth = JSON.parse(readFileSync(join(dir, 'truth.json'), 'utf8')) as Truth;
    const file = join(dir, 'runs', 'r', 'params.jsonl');
    rec = readParamsFile(file);
    raw = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
  });

  it('leave the workload as it was: the same output, losses and weights, exit status 0', () => {
    assert.equal(plain.code, 0, plain.err);
    assert.deepEqual(agent, plain);
    assert.match(plain.out, /^step 4 loss /m);
  });

  it('name every parameter as named_parameters() does (the tied weight by its first name)', () => {
    assert.deepEqual(rec.optimizers, ['Adam']);
    const names = [...new Set(rec.tensors.filter((t) => t.kind === 'parameter').map((t) => t.name))];
    assert.deepEqual(names, truth.names);
    assert.ok(
      names.includes('transformer.h.2.attn.c_attn.weight') && names.includes('transformer.wte.weight') && !names.includes('lm_head.weight'),
    );
    assert.ok(rec.tensors.every((t) => t.named));
  });

  it('give, at each step, the storage of every parameter, gradient and state tensor, and nothing else', () => {
    const obs = rec.observations[0]!;
    assert.equal(obs.length, truth.steps.length, 'one observation per step');
    truth.steps.forEach((step, k) => {
      const j = obs.findIndex((t) => t >= step.t0 && t <= step.t1);
      assert.ok(j >= 0, `an observation during step ${k}`);
      const seen = rec.tensors.filter((t) => t.from <= j && j < t.to).map((t) => `${t.name} ${t.kind} ${t.key ?? ''} ${t.addr} ${t.bytes}`);
      const want = step.tensors.map((t) => `${t.name} ${t.kind} ${t.key ?? ''} ${t.at[0]} ${t.at[1]}`);
      assert.deepEqual(seen.sort(), want.sort(), `step ${k}`);
    });
    // Adam's state: step, exp_avg and exp_avg_sq for each parameter.
    assert.deepEqual([...new Set(rec.tensors.filter((t) => t.kind === 'optimizer_state').map((t) => t.key))].sort(), [
      'exp_avg',
      'exp_avg_sq',
      'step',
    ]);
  });

  it('record only while PyTorch records, and the first step after a snapshot (it holds that step’s gradients)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-params-'));
    // Recording windows (the default) that close after 2 backward() calls: the window closes, and
    // writes its snapshot, at step 1's backward().
    const env = {
      HEADROOM_AGENT: '1',
      HEADROOM_RUNS_DIR: join(dir, 'runs'),
      HEADROOM_RUN_ID: 'r',
      HEADROOM_WINDOW_CALLS: '2',
      HEADROOM_WINDOW_QUIET: '1',
      HEADROOM_PARAMS_CPU: '1',
    };
    const r = train(env, join(dir, 'truth.json'));
    assert.deepEqual(r, plain);
    const t = JSON.parse(readFileSync(join(dir, 'truth.json'), 'utf8')) as Truth;
    const events = readFileSync(join(dir, 'runs', 'r', 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; t: number });
    const closed = events.find((e) => e.event === 'window_close')!;
    assert.ok(closed && events.some((e) => e.event === 'snapshot' && e.t <= closed.t));
    const obs = [...readParamsFile(join(dir, 'runs', 'r', 'params.jsonl')).observations[0]!];
    assert.deepEqual(
      obs.map((o) => t.steps.findIndex((s) => o >= s.t0 && o <= s.t1)),
      [0, 1],
    );
    assert.ok(obs[0]! < closed.t && obs[1]! > closed.t);
  });

  it('write only what changed: gradients zeroed in place are "seen" again, not written again', () => {
    assert.deepEqual(raw.map((l) => l.type).slice(-2), ['seen', 'seen']);
    assert.equal(raw.filter((l) => l.type === 'names').length, 1);
    assert.equal(rec.skipped, 0);
    assert.equal(rec.capped, false);
  });
});
