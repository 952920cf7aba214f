// `headroom run` when nothing was recorded: the reason, the run folder, the workload's exit code.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CLI } from './cliProcess';
import { ROOT } from './helpers';

describe('headroom run when nothing was recorded', () => {
  const FAKE_TORCH = join(ROOT, 'test', 'agent', 'fake_torch');
  const HARM = join(ROOT, 'test', 'agent', 'workloads', 'harm.py');
  /** `headroom run --out DIR -- ARGS`; the run folder is the one folder it made. */
  const run = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const out = mkdtempSync(join(tmpdir(), 'headroom-run-'));
    const r = spawnSync(process.execPath, [CLI, 'run', '--out', out, '--', ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
    const dirs = readdirSync(out);
    assert.equal(dirs.length, 1, dirs.join(' '));
    const dir = join(out, dirs[0]!);
    return {
      code: r.status,
      out: r.stdout,
      err: r.stderr,
      dir,
      launch: JSON.parse(readFileSync(join(dir, 'launch.json'), 'utf8')) as Record<string, unknown>,
    };
  };
  const sentence = {
    'no-torch':
      'headroom: nothing was recorded: the workload never imported torch (is it a Python script? did it run under another interpreter?)',
    'no-cuda':
      'headroom: nothing was recorded: the workload imported torch but never used CUDA (torch.cuda.is_available() was False, or the model stayed on the CPU)',
    'no-memory': 'headroom: nothing was recorded: the workload used CUDA but never held CUDA memory',
  } as const;
  const lastReason = (dir: string) =>
    readFileSync(join(dir, 'agent.log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { nothing_recorded?: string })
      .at(-1)?.nothing_recorded;

  it('a Python command without torch: the agent’s reason when it wrote its log, else that it never started', () => {
    const r = run(['python3', '-c', 'print(1)']);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, '1\n');
    if (existsSync(join(r.dir, 'agent.log.jsonl'))) {
      assert.equal(lastReason(r.dir), 'no-torch');
      assert.ok(r.err.includes(sentence['no-torch'] + '\n'), r.err);
      assert.equal(r.launch.nothing_recorded, 'no-torch');
    } else {
      assert.ok(r.err.includes(`agent never started in any Python process of the command`) && r.err.includes(r.dir), r.err);
    }
    assert.doesNotMatch(r.err, /see agent\.log\.jsonl|no snapshot was recorded \(/);
  });

  it('torch imported without CUDA, and CUDA without memory (the agent tests’ torch stand-in)', () => {
    const env = { PYTHONPATH: FAKE_TORCH };
    for (const [args, why] of [
      [['python3', '-c', 'import torch'], 'no-cuda'],
      [['python3', HARM, 'cuda-no-alloc'], 'no-memory'],
    ] as const) {
      const r = run([...args], env);
      assert.equal(r.code, 0, r.err);
      assert.equal(lastReason(r.dir), why, 'the agent wrote its reason');
      assert.ok(r.err.includes(sentence[why] + '\n'), r.err);
      assert.equal(r.launch.nothing_recorded, why);
    }
  });

  it('a command that is not Python: the agent never started, the run folder named, the workload’s exit code kept', () => {
    const r = run(['sh', '-c', 'exit 3']);
    assert.equal(r.code, 3);
    assert.ok(!existsSync(join(r.dir, 'agent.log.jsonl')));
    assert.ok(
      r.err.includes(
        `headroom: nothing was recorded: Headroom's agent never started in any Python process of the command (is the command Python? did it replace PYTHONPATH?); the run folder is ${r.dir}\n`,
      ),
      r.err,
    );
    assert.equal(r.launch.nothing_recorded, 'no-agent');
    assert.equal(r.launch.exit_code, 3);
  });
});
