import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { before, describe, it } from 'node:test';
import { RunServer } from '../../extension/src/core/run/server';
import { DEBIAN_PY, ensureDebianTorch } from './pythons';

const ROOT = resolve(__dirname, '..', '..');
const AGENT = join(ROOT, 'extension', 'agent');
const OBSERVE = join(__dirname, 'workloads', 'observe.py');
function withAgent(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const runs = mkdtempSync(join(tmpdir(), 'headroom-agent-'));
  return { ...process.env, PYTHONPATH: AGENT, HEADROOM_AGENT: '1', HEADROOM_RUNS_DIR: runs, HEADROOM_RUN_ID: 'test', ...extra };
}

function run(python: string, args: string[], env: NodeJS.ProcessEnv) {
  const r = spawnSync(python, args, { encoding: 'utf8', env, cwd: tmpdir() });
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

function plainEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.PYTHONPATH;
  delete env.HEADROOM_AGENT;
  return env;
}

describe('the agent leaves the workload unchanged', () => {
  before(() => ensureDebianTorch());

  for (const [label, python] of [
    ['a Python without torch', 'python3'],
    ["Debian's python3 with python3-torch (CPU)", DEBIAN_PY],
  ] as const) {
    for (const how of ['ok', 'code3', 'raise', 'sigterm', 'sigint', 'warn']) {
      it(`${label}: "${how}" gives the same output, exceptions and exit status`, () => {
        const plain = run(python, [OBSERVE, how, 'extra arg'], plainEnv());
        const agent = run(python, [OBSERVE, how, 'extra arg'], withAgent());
        assert.deepEqual(agent, plain);
        if (python === DEBIAN_PY) assert.match(plain.out, /^torch 1\.13/m, 'the real torch was imported and trained');
        else assert.match(plain.out, /^torch absent$/m);
      });
    }
  }

  it('chain-loads the sitecustomize it shadows (Debian ships one)', () => {
    assert.ok(existsSync('/usr/lib/python3.11/sitecustomize.py'));
    const agent = run(DEBIAN_PY, [OBSERVE, 'ok'], withAgent());
    assert.match(agent.out, /^sitecustomize \/usr\/lib\/python3\.11\/sitecustomize\.py$/m);
  });

  it('python -m headroom_agent keeps argv, __main__, sys.path[0], output and exit code', () => {
    for (const how of ['ok', 'code3']) {
      const plain = run(DEBIAN_PY, [OBSERVE, how], plainEnv());
      const viaM = run(DEBIAN_PY, ['-m', 'headroom_agent', OBSERVE, how], {
        ...plainEnv(),
        PYTHONPATH: AGENT,
        HEADROOM_RUNS_DIR: mkdtempSync(join(tmpdir(), 'hr-')),
      });
      assert.equal(viaM.code, plain.code);
      assert.equal(viaM.out.replace(/^sitecustomize .*$/m, ''), plain.out.replace(/^sitecustomize .*$/m, ''));
    }
  });

  it('an unwritable run folder never reaches the workload', () => {
    const agent = run(DEBIAN_PY, [OBSERVE, 'ok'], withAgent({ HEADROOM_RUNS_DIR: '/proc/headroom-cannot-write-here' }));
    assert.equal(agent.code, 0);
    assert.match(agent.out, /^end$/m);
    assert.equal(agent.err, '');
  });
});

describe('the channel', () => {
  it('refuses a wrong token, and a peer that does not say hello first', async () => {
    const refused: string[] = [];
    let connects = 0;
    const server = await RunServer.listen({ refused: (r) => refused.push(r), connect: () => connects++ });
    try {
      const send = (code: string, token: string) =>
        spawnSync(
          'python3',
          [
            '-c',
            `import time, sys
from headroom_agent.channel import Channel
c = Channel(sys.argv[1], sys.argv[2], lambda m: None, lambda *a: None)
hello = {"pid": 1, "rank": None, "local_rank": None, "world_size": None, "run_dir": "x"}
${code}`,
            server.address,
            token,
          ],
          { env: { ...process.env, PYTHONPATH: AGENT }, encoding: 'utf8' },
        );
      send('c.start(hello); c.send({"type": "sample"}); time.sleep(0.5); c.close()', 'not-the-token');
      spawnSync('python3', [
        '-c',
        'import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"{\\"type\\":\\"sample\\"}\\n"); import time; time.sleep(0.3)',
        server.address,
      ]);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(connects, 0);
      assert.ok(refused.includes('wrong token'), refused.join(','));
      assert.ok(refused.includes('the first message was not a hello'), refused.join(','));
      send('c.start(hello); time.sleep(0.5); c.close()', server.token);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(connects, 1, 'the right token is accepted');
    } finally {
      await server.close();
    }
  });

  it('when the editor side is killed mid-run, the workload goes on and the run folder is complete', async () => {
    const editor = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'server.child.ts')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: editor.stdout! });
    const first = await new Promise<string>((r) => lines.once('line', r));
    const [address, token] = first.split(' ');
    let received = 0;
    lines.on('line', (l) => (l === 'sample' ? received++ : undefined));
    const dir = join(mkdtempSync(join(tmpdir(), 'headroom-kill-')), 'run');
    const n = 200;
    const workload = spawn('python3', [join(__dirname, 'workloads', 'emit.py'), dir, String(n)], {
      env: { ...process.env, PYTHONPATH: AGENT, HEADROOM_SOCKET: address!, HEADROOM_TOKEN: token! },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    workload.stdout!.on('data', (b) => (out += b));
    await new Promise((r) => setTimeout(r, 800));
    editor.kill('SIGKILL');
    const code = await new Promise<number | null>((r) => workload.once('exit', r));
    assert.equal(code, 0);
    assert.equal(out.trim(), `emitted ${n}`);
    assert.ok(received > 0 && received < n, `the editor saw ${received} samples before it died`);
    const samples = readFileSync(join(dir, 'samples.jsonl'), 'utf8').trim().split('\n');
    assert.equal(samples.length, n, 'every sample is on disk');
    assert.deepEqual(JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')), { samples: n, status: 'ended' });
  });
});
