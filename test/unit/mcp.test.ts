// `headroom mcp`, spoken to as an assistant would: the SDK's own client starts it as a child
// process over stdio, initializes, lists the tools and calls each on real captures. Every figure
// an answer gives is checked against the CLI's own commands on the same file (analyze --json,
// check --explain-oom, check --no-leak, lint --json, diff --json), not against the tools' code.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { formatBytes } from '../../extension/src/shared/format';
import { PAGE_CHARS } from '../../extension/src/core/tools/page';
import { pythonBytes, ROOT } from './helpers';

const CLI = join(ROOT, 'dist', 'cli.js');
const SNAPS = join(ROOT, 'test', 'fixtures', 'snapshots');
const cli = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
const json = <T>(args: string[]): T =>
  JSON.parse(execFileSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 })) as T;

describe('headroom mcp (Model Context Protocol over stdio)', () => {
  // The client's roots: the repository (fixtures, demo) and the temporary folder (files made here).
  const client = new Client({ name: 'headroom-test', version: '0' }, { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: [ROOT, tmpdir()].map((d) => ({ uri: pathToFileURL(d).href })),
  }));
  before(async () => {
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], stderr: 'pipe' }));
  });
  after(async () => {
    await client.close();
  });
  const ask = async (name: string, args: Record<string, unknown>) => {
    const r = (await client.callTool({ name, arguments: args })) as { content: { type: string; text: string }[]; isError?: boolean };
    assert.equal(r.content.length, 1);
    assert.equal(r.content[0]!.type, 'text');
    return { text: r.content[0]!.text, error: r.isError === true };
  };

  it('lists six read-only tools, each with a JSON Schema for its arguments', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['headroom_summary', 'headroom_explain_oom', 'headroom_leaks', 'headroom_lint', 'headroom_compare', 'headroom_whatif'],
    );
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object');
      assert.equal(t.annotations?.readOnlyHint, true);
      assert.ok((t.description ?? '').length > 40);
    }
  });

  it('summary: the peak and the top lines as headroom analyze --json gives them, for a snapshot and for a run folder', async () => {
    for (const path of [join(SNAPS, 'e2e_train_b64.pickle'), join(ROOT, 'test', 'fixtures', 'runs', 'lm_train')]) {
      const { text, error } = await ask('headroom_summary', { path });
      assert.equal(error, false, text);
      const file = path.endsWith('.pickle') ? path : join(path, 'snapshot-peak.pickle');
      const r = json<{ peak: { requested_bytes: number }; lines: { file: string; line: number; self_bytes: number }[] }>([
        'analyze',
        file,
        '--json',
        '--top',
        '3',
      ]);
      assert.match(text, new RegExp(`\\(${r.peak.requested_bytes} B\\)`));
      for (const l of r.lines)
        assert.ok(text.includes(`${l.file}:${l.line} `) && text.includes(formatBytes(l.self_bytes)), `${l.file}:${l.line} in\n${text}`);
    }
  });

  it('summary with module scopes names the modules with their bytes (HF Trainer capture)', async () => {
    const snap = join(ROOT, 'test', 'fixtures', 'modules', 'hf_trainer', 'snapshot-peak.pickle.gz');
    const { text } = await ask('headroom_summary', { path: snap });
    const m = json<{ by_module: { modules: { path: string; self_bytes: number }[] } }>([
      'analyze',
      snap,
      '--by',
      'module',
      '--json',
      '--top',
      '0',
    ]).by_module.modules;
    const top = m.reduce((a, b) => (b.self_bytes > a.self_bytes ? b : a));
    assert.ok(text.includes(`  ${top.path}: ${formatBytes(top.self_bytes)}`), text);
  });

  it('explain OOM: the same verdict as headroom check --explain-oom, from a snapshot and from a log', async () => {
    const snap = join(SNAPS, 'frag_oom.pickle');
    const theirs = cli(['check', snap, '--explain-oom']).stdout;
    const { text } = await ask('headroom_explain_oom', { path: snap });
    const verdict = /^device \d+, event #\d+: (.+)$/m.exec(theirs)![1]!;
    assert.ok(text.includes(verdict.trim()), `${verdict}\n---\n${text}`);
    const log = join(SNAPS, 'shared', 'oom_fraction_message.txt');
    const fromLog = await ask('headroom_explain_oom', { path: log });
    assert.equal(fromLog.text.split('\n')[0], cli(['check', log, '--explain-oom']).stdout.split('\n')[0]);
  });

  it('explain OOM with a run: its snapshot of the same OOM is the evidence; a run that cannot be read leaves the message’s reading and says so', async () => {
    const run = join(ROOT, 'test', 'fixtures', 'runs', 'non_pytorch_oom');
    const dir = mkdtempSync(join(tmpdir(), 'headroom-mcp-'));
    const log = join(dir, 'job.log');
    writeFileSync(
      log,
      `torch.OutOfMemoryError: ${(JSON.parse(readFileSync(join(run, 'truth.json'), 'utf8')) as { message: string }).message}\n`,
    );
    const withRun = await ask('headroom_explain_oom', { path: log, run });
    assert.equal(withRun.text, cli(['check', log, '--explain-oom', '--run', run]).stdout.trimEnd());
    assert.match(withRun.text, /evidence: non_pytorch_oom\/snapshot-oom-1\.pickle/);
    // The editor passes the snapshot it shows: its run folder is read.
    assert.match((await ask('headroom_explain_oom', { path: log, run: join(run, 'snapshot-oom-1.pickle') })).text, /evidence: /);
    const bad = await ask('headroom_explain_oom', { path: log, run: dir });
    assert.match(bad.text, /^OOM: non-pytorch — /);
    assert.match(bad.text, /no evidence from .*not a Headroom run folder/);
  });

  it('leaks: the growth per iteration and the lines of headroom check --no-leak', async () => {
    const snap = join(SNAPS, 'leaky_demo.pickle');
    const theirs = cli(['check', snap, '--no-leak']);
    assert.equal(theirs.status, 1);
    const { text } = await ask('headroom_leaks', { path: snap });
    assert.match(text, /leaking/);
    for (const line of theirs.stdout.trim().split('\n').slice(1)) assert.ok(text.includes(line.trim()), `${line}\n---\n${text}`);
  });

  it('lint: the findings of headroom lint --json, each with what the run measured on its line', async () => {
    const file = join(ROOT, 'demo', 'workspace', 'train_leaky.py');
    const theirs = (JSON.parse(cli(['lint', file, '--json']).stdout) as { findings: { rule: string; start: { line: number } }[] }).findings;
    assert.ok(theirs.length > 0);
    const { text } = await ask('headroom_lint', { file, run: join(SNAPS, 'leaky_demo.pickle') });
    for (const f of theirs)
      assert.ok(text.includes(`${file}:${f.start.line}:`) && text.includes(f.rule), `${f.rule} at ${f.start.line}\n${text}`);
    // check --no-leak names the lines that keep memory; the tool puts them on the loop's findings.
    const leakLines = [...cli(['check', join(SNAPS, 'leaky_demo.pickle'), '--no-leak']).stdout.matchAll(/train_leaky\.py:(\d+) /g)].map(
      (m) => m[1],
    );
    assert.ok(leakLines.length > 0);
    assert.match(text, new RegExp(`run: the loop leaks [\\d.]+ \\S+ per iteration, created at lines? ${leakLines.join(', ')}`));
  });

  it("lint: the project's [tool.headroom.lint] table decides, as for headroom lint and the editor", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-mcp-config-'));
    const file = join(dir, 'train_leaky.py');
    writeFileSync(file, readFileSync(join(ROOT, 'demo', 'workspace', 'train_leaky.py')));
    const all = (JSON.parse(cli(['lint', file, '--json']).stdout) as { findings: { rule: string }[] }).findings.map((f) => f.rule);
    const dropped = all[0]!;
    assert.ok(all.length > 1 && all.some((r) => r !== dropped), all.join(' '));
    writeFileSync(join(dir, 'pyproject.toml'), `[tool.black]\nline-length = 100\n\n[tool.headroom.lint]\nignore = ["${dropped}"]\n`);
    const theirs = (JSON.parse(cli(['lint', file, '--json']).stdout) as { findings: { rule: string; start: { line: number } }[] }).findings;
    assert.ok(theirs.length > 0 && !theirs.some((f) => f.rule === dropped));
    const { text, error } = await ask('headroom_lint', { file });
    assert.equal(error, false, text);
    assert.ok(!text.includes(` ${dropped} `), text);
    for (const f of theirs)
      assert.ok(text.includes(`${file}:${f.start.line}:`) && text.includes(f.rule), `${f.rule} at ${f.start.line}\n${text}`);
    writeFileSync(join(dir, 'pyproject.toml'), '[tool.headroom.lint]\nexclude = ["train_*.py"]\n');
    assert.match((await ask('headroom_lint', { file })).text, /not linted: excluded by .*pyproject\.toml/);
    writeFileSync(join(dir, 'pyproject.toml'), '[tool.headroom.lint]\nignore = ["HR999"]\n');
    const bad = await ask('headroom_lint', { file });
    assert.equal(bad.error, true);
    assert.match(bad.text, /pyproject\.toml:2: .*HR999/);
  });

  it('compare: the peak change of headroom diff --json', async () => {
    const [a, b] = [join(SNAPS, 'e2e_train_b64.pickle'), join(SNAPS, 'e2e_train_b128.pickle')];
    const d = json<{ before: { peak_requested_bytes: number }; after: { peak_requested_bytes: number } }>(['diff', a, b, '--json']);
    const { text } = await ask('headroom_compare', { before: a, after: b });
    assert.ok(text.includes(`${d.before.peak_requested_bytes} B → ${d.after.peak_requested_bytes} B`), text);
  });

  it('compare: per module too, when both runs recorded module scopes (analyze --by module of each)', async () => {
    const [a, b] = ['nanogpt_eager', 'nanogpt_compiled'].map((n) =>
      join(ROOT, 'test', 'fixtures', 'modules', n, 'snapshot-peak.pickle.gz'),
    ) as [string, string];
    const mods = (p: string) =>
      new Map(
        json<{ by_module: { modules: { path: string; self_bytes: number }[] } }>([
          'analyze',
          p,
          '--by',
          'module',
          '--json',
          '--top',
          '0',
        ]).by_module.modules.map((m) => [m.path, m.self_bytes]),
      );
    const [before, after] = [mods(a), mods(b)];
    const paths = [...new Set([...before.keys(), ...after.keys()])];
    const most = paths.reduce((x, y) =>
      Math.abs((after.get(y) ?? 0) - (before.get(y) ?? 0)) > Math.abs((after.get(x) ?? 0) - (before.get(x) ?? 0)) ? y : x,
    );
    const { text } = await ask('headroom_compare', { before: a, after: b });
    assert.ok(text.includes(`  ${most}: ${formatBytes(before.get(most) ?? 0)} → ${formatBytes(after.get(most) ?? 0)}`), `${most}\n${text}`);
  });

  it('whatif: the figures of headroom whatif --json, for a batch, an allocator setting and the largest batch; one question a call', async () => {
    const f = join(SNAPS, 'e2e_train_b64.pickle');
    const batch = json<{ predicted: { requested_peak_bytes: number; reserved_peak_bytes: number } }>([
      'whatif',
      f,
      '--batch-scale',
      '2',
      '--json',
    ]);
    const b = await ask('headroom_whatif', { path: f, batch_scale: 2 });
    assert.equal(b.error, false, b.text);
    assert.ok(
      b.text.includes(formatBytes(batch.predicted.requested_peak_bytes)) &&
        b.text.includes(formatBytes(batch.predicted.reserved_peak_bytes)),
      b.text,
    );
    assert.match(b.text, /fixed: parameters/);
    const conf = json<{ predicted: { reserved_peak_bytes: number }[] }>([
      'whatif',
      f,
      '--alloc-conf',
      'expandable_segments:True',
      '--json',
    ]);
    const c = await ask('headroom_whatif', { path: f, alloc_conf: 'expandable_segments:True' });
    assert.ok(c.text.includes(`reserved peak ${formatBytes(conf.predicted[0]!.reserved_peak_bytes)}`), c.text);
    const most = json<{ max_batch: { best: number } }>(['whatif', f, '--max-batch', '--recorded-batch', '64', '--cap-gib', '1', '--json']);
    const m = await ask('headroom_whatif', { path: f, max_batch: true, recorded_batch: 64, cap_gib: 1 });
    assert.ok(m.text.includes(`largest batch: ${most.max_batch.best},`), m.text);
    const gpt = join(ROOT, 'test', 'fixtures', 'modules', 'nanogpt_eager', 'snapshot-peak.pickle.gz');
    const line =
      readFileSync(join(ROOT, 'test', 'gpu', 'capture', 'frameworks', 'nanogpt.py'), 'utf8')
        .split('\n')
        .findIndex((l) => l.trim() === 'x = block(x)') + 1;
    const ck = json<{ predicted: { requested_peak_bytes: number } }>(['whatif', gpt, '--checkpoint', `nanogpt.py:${line}`, '--json']);
    const k = await ask('headroom_whatif', { path: gpt, checkpoint: `nanogpt.py:${line}` });
    assert.ok(k.text.includes(`requested peak ${formatBytes(ck.predicted.requested_peak_bytes)}`), k.text);
    for (const bad of [
      { path: f },
      { path: f, batch_scale: 2, max_batch: true },
      { path: f, batch_scale: -1 },
      { path: f, max_batch: true },
      { path: f, alloc_conf: 'no_such_option:1' },
      { path: f, checkpoint: 'train.py' },
      { path: gpt, checkpoint: 'nowhere.py:3' },
    ]) {
      const r = await ask('headroom_whatif', bad);
      assert.equal(r.error, true, JSON.stringify(bad));
    }
  });

  it('bad arguments and hostile files are tool errors, and the server answers the next call', async () => {
    const missing = await ask('headroom_summary', { path: join(tmpdir(), 'no', 'such', 'snapshot.pickle') });
    assert.equal(missing.error, true);
    assert.match(missing.text, /no such file/);
    // Outside the client's roots: refused, the roots named, whether the file is there or not.
    for (const path of ['/no/such/snapshot.pickle', '/etc/passwd']) {
      const outside = await ask('headroom_summary', { path });
      assert.equal(outside.error, true);
      assert.ok(
        outside.text.includes(`${path} is outside the folders Headroom may read (the client's roots: ${ROOT}, ${tmpdir()})`),
        outside.text,
      );
    }
    const wrongType = await ask('headroom_leaks', { path: 42 });
    assert.equal(wrongType.error, true);
    // A pickle that would run a command when unpickled: refused by the safe reader, as a tool error.
    const evil = join(mkdtempSync(join(tmpdir(), 'hr-mcp-')), 'evil.pickle');
    writeFileSync(
      evil,
      pythonBytes(`import os, pickle, sys
class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))
sys.stdout.buffer.write(pickle.dumps({"segments": [Evil()], "device_traces": []}, protocol=2))`),
    );
    const hostile = await ask('headroom_summary', { path: evil });
    assert.equal(hostile.error, true, hostile.text);
    // Frame names with terminal escapes, bidi marks and markdown come back as inert text.
    const named = join(mkdtempSync(join(tmpdir(), 'hr-mcp-')), 'named.pickle');
    execFileSync('python3', [
      join(ROOT, 'test', 'fixtures', 'hostile', 'make_snapshot.py'),
      named,
      'http://127.0.0.1:9/p.png',
      '/cluster/jobs/7',
      '24',
    ]);
    const shown = await ask('headroom_summary', { path: named });
    assert.equal(shown.error, false, shown.text);
    assert.doesNotMatch(shown.text, /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
    const ok = await ask('headroom_leaks', { path: join(SNAPS, 'leaky_demo.pickle') });
    assert.equal(ok.error, false);
  });

  it('every answer stays within its page size on the largest captures here, and pages go on', async () => {
    const sizes: string[] = [];
    for (const path of [
      join(ROOT, 'test', 'fixtures', 'window', 'full', 'snapshot-exit.pickle.gz'),
      join(ROOT, 'test', 'fixtures', 'modules', 'hf_trainer', 'snapshot-peak.pickle.gz'),
      join(SNAPS, 'transformer_amp_ckpt.pickle'),
    ]) {
      for (const tool of ['headroom_summary', 'headroom_leaks']) {
        const { text } = await ask(tool, { path });
        const body = text.replace(/\n\(page \d+ of \d+[^)]*\)$/, '');
        assert.ok(body.length <= PAGE_CHARS, `${tool} on ${path}: ${body.length} characters`);
        sizes.push(`${tool} ${path.split('/').slice(-2).join('/')}: ${text.length}`);
        const pages = /\(page 1 of (\d+)/.exec(text);
        if (pages) assert.equal((await ask(tool, { path, page: Number(pages[1]) })).error, false);
      }
    }
    console.log(`answer sizes (characters): ${sizes.join('; ')}`);
  });
});
