// The OOM doctor on messages from real runs on a GPU: each workload (test/gpu/capture/oom_messages.py,
// a Hugging Face Trainer among them, one under torchrun) dies of an OOM that PyTorch prints; the
// message alone must get the verdict that the snapshot Headroom took at the same OOM gets, and with
// --run that snapshot must become the evidence. GPU host only (see README); CI skips it.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = process.env.HEADROOM_ROOT ?? resolve(__dirname, '..', '..');
const CLI = process.env.HEADROOM_CLI ?? join(ROOT, 'dist', 'cli.js');
const CAPTURE = join(ROOT, 'test', 'gpu', 'capture');

function gpu(): boolean {
  try {
    execFileSync('python3', ['-c', 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const SKIP = gpu() ? false : 'needs a CUDA GPU and PyTorch: runs on the GPU host (CI skips it)';

interface Oom {
  class: string;
  evidence?: string;
  reason: string;
  remedies: { id: string }[];
}
const explain = (...args: string[]) =>
  (JSON.parse(execFileSync(process.execPath, [CLI, 'check', ...args, '--explain-oom', '--json'], { encoding: 'utf8' })) as { ooms: Oom[] })
    .ooms;

const cases: { name: string; file: string; cmd: string[]; want: string; env?: Record<string, string> }[] = [
  { file: 'frag', name: 'holes under a cap', cmd: ['python3', 'oom_messages.py', 'frag'], want: 'fragmentation' },
  { file: 'cap', name: 'a memory fraction', cmd: ['python3', 'oom_messages.py', 'cap'], want: 'cap' },
  { file: 'demand', name: 'activations outgrowing the device in training', cmd: ['python3', 'oom_messages.py', 'demand'], want: 'demand' },
  { file: 'huge', name: 'a tensor twice the device', cmd: ['python3', 'oom_messages.py', 'huge'], want: 'demand' },
  {
    file: 'hf_trainer',
    name: 'Hugging Face Trainer, GPT-2 at batch 256',
    cmd: ['python3', 'oom_messages.py', 'hf_trainer'],
    want: 'demand',
  },
  {
    file: 'torchrun_cap',
    name: 'torchrun under a memory fraction (its elastic agent reports the failure after the message)',
    cmd: ['torchrun', '--nproc-per-node', '1', 'oom_messages.py', 'cap'],
    want: 'cap',
  },
];

describe('the OOM doctor on messages from real runs', { skip: SKIP }, () => {
  for (const c of cases) {
    it(`${c.name}: the message's verdict is the snapshot's (${c.want})`, () => {
      const out = mkdtempSync(join(tmpdir(), 'headroom-gpu-oom-'));
      const runs = join(out, 'runs');
      const r = spawnSync(process.execPath, [CLI, 'run', '--out', runs, '--', ...c.cmd], {
        encoding: 'utf8',
        cwd: CAPTURE,
        env: { ...process.env, ...c.env },
      });
      assert.notEqual(r.status, 0, 'the workload still dies of its OOM');
      assert.notEqual(r.status, 3, r.stderr.slice(-2000));
      const log = join(out, 'job.log');
      writeFileSync(log, r.stdout + r.stderr);
      const alone = explain(log);
      assert.ok(alone.length >= 1, r.stderr.slice(-3000));
      const run = join(runs, readdirSync(runs).sort()[0]!);
      const withRun = explain(log, '--run', run);
      const snap = withRun.find((o) => o.evidence);
      assert.ok(snap, `the run's snapshot of the same OOM: ${JSON.stringify(withRun)}`);
      assert.match(snap.evidence!, /snapshot-oom-\d+\.pickle/);
      const last = alone.at(-1)!;
      assert.equal(last.class, snap.class, `message: ${last.reason}\nsnapshot: ${snap.reason}`);
      assert.equal(last.class, c.want, last.reason);
      // HEADROOM_OOM_OUT=dir keeps each log's tail and both verdicts (test/fixtures/oom/gpu/).
      const keep = process.env.HEADROOM_OOM_OUT;
      if (keep) {
        writeFileSync(join(keep, `${c.file}.log`), (r.stdout + r.stderr).slice(-12_000));
        writeFileSync(
          join(keep, `${c.file}.json`),
          JSON.stringify({ workload: c.cmd, message: last.class, snapshot: snap.class, evidence: snap.evidence }, null, 1) + '\n',
        );
      }
      if (c.want === 'demand' && c.name.includes('training'))
        assert.ok(
          last.remedies.some((x) => x.id === 'checkpoint'),
          'training: checkpointing is offered',
        );
    });
  }
});
