import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { ROOT, Session } from './harness/session';
import { e2e } from './harness/test';
import { webviewContent } from './pages/webview';
import { waitFor } from './waitFor';

// Snapshots recorded on an H200 from test/e2e/workspace/train.py itself (batch 64 and 128), so
// their frames point at the lines of the workspace's train.py.
const SNAP = join(ROOT, 'test', 'fixtures', 'snapshots');
const B64 = join(SNAP, 'e2e_train_b64.pickle');
const B128 = join(SNAP, 'e2e_train_b128.pickle');
// The same capture as if recorded on a cluster: frames under /cluster/jobs/42 instead of the
// workspace folder. With other/train.py in the workspace, the name alone is ambiguous.
const REMOTE = join(mkdtempSync(join(tmpdir(), 'headroom-remote-')), 'remote.pickle');
execFileSync('python3', [join(ROOT, 'test', 'reference', 'reprefix.py'), B64, REMOTE, '/work/main/test/e2e/workspace', '/cluster/jobs/42']);

// A pickle that is not a snapshot (a dict subclass, as a checkpoint's metadata might be).
const OTHER = join(REMOTE, '..', 'other.pickle');
execFileSync('python3', [
  '-c',
  'import collections,pickle,sys; pickle.dump(collections.OrderedDict(step=3, lr=0.1), open(sys.argv[1], "wb"))',
  OTHER,
]);

interface JsonLine {
  file: string;
  line: number;
  self_bytes: number;
  inclusive_bytes: number;
  kinds: { kind: string; bytes: number }[];
}

/** A line's kind as every surface shows it: the main one, "+" when others hold over a tenth. */
function mainKind(l: JsonLine): string {
  const all = l.kinds.reduce((t, k) => t + k.bytes, 0);
  return `${l.kinds[0]!.kind}${l.kinds[0]!.bytes < 0.9 * all ? '+' : ''}`;
}

/** What `headroom analyze --json` says of the workspace's train.py at the peak. */
function analyze(path: string): JsonLine[] {
  const out = execFileSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'analyze', path, '--json', '--top', '0'], { encoding: 'utf8' });
  return (JSON.parse(out) as { lines: JsonLine[] }).lines.filter((l) => l.file.endsWith('/train.py'));
}

const UNIT: Record<string, number> = { B: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30 };
/** "▲241 MiB" → 241 MiB in bytes; the page shows three significant digits. */
function figure(text: string, sign = '▲'): number {
  const m = new RegExp(`${sign} ?(\\d+(?:\\.\\d+)?) (B|KiB|MiB|GiB)`).exec(text);
  assert.ok(m, `no figure in "${text}"`);
  return Number(m[1]) * UNIT[m[2]!]!;
}
const near = (shown: number, exact: number) => Math.abs(shown - exact) <= Math.max(0.01 * exact, 1);

describe('memory on the code', () => {
  let s: Session | undefined;
  before(async () => {
    s = await Session.open({
      workspace: join(__dirname, 'workspace'),
      files: [
        [B64, 'b64.pickle'],
        [B128, 'b128.pickle'],
        [REMOTE, 'remote.pickle'],
        [OTHER, 'other.pickle'],
      ],
      settings: { 'headroom.pathMappings': { '/cluster/jobs/42': '${workspaceFolder}' } },
    });
    await s.activate('train.py');
  });
  after(async () => {
    await s?.close();
  });

  const openSnapshot = async (s: Session, name: string) => {
    await s.workbench.runCommand('Headroom: Open Memory Snapshot…');
    await s.workbench.answerFileDialog(join(s.workspace, name));
    await webviewContent(s.page).locator('[data-fact="peak"]').waitFor({ timeout: 60_000 });
    await s.workbench.openFile('train.py');
  };

  e2e(
    'opening a snapshot decorates the lines that hold memory, with the CLI’s figures',
    () => s!,
    async (s) => {
      await openSnapshot(s, 'b64.pickle');
      const expected = analyze(B64);
      await s.page.waitForFunction(() => document.querySelectorAll('.editor-instance .view-lines span').length > 0);
      const decos = await waitFor(
        'after-line decorations',
        () => s.editor.afterDecorations(),
        (d) => d.length > 0,
      );
      const top = expected.reduce((a, b) => (b.self_bytes > a.self_bytes ? b : a));
      const onTop = decos.find((d) => d.line === top.line);
      assert.ok(onTop, `a decoration on line ${top.line}: ${JSON.stringify(decos)}`);
      // At the peak the decoration is the figure alone (the instant is named only when it is not the peak).
      assert.match(onTop.text, /^▲ ?[\d.]+ \S+$/);
      assert.ok(near(figure(onTop.text), top.self_bytes), `${onTop.text} vs ${top.self_bytes} B`);
      for (const d of decos) {
        const l = expected.find((x) => x.line === d.line);
        assert.ok(l, `line ${d.line} is decorated but the CLI lists no memory there`);
        if (d.text.startsWith('▲')) assert.ok(near(figure(d.text), l.self_bytes), `line ${d.line}: ${d.text} vs ${l.self_bytes}`);
        else assert.ok(near(figure(d.text, '⊂'), l.inclusive_bytes), `line ${d.line}: ${d.text} vs ${l.inclusive_bytes}`);
      }
    },
  );

  e2e(
    'the hover shows the stack and the code lens opens the summary',
    () => s!,
    async (s) => {
      const expected = analyze(B64);
      const top = expected.reduce((a, b) => (b.self_bytes > a.self_bytes ? b : a));
      const hover = await s.editor.hover(top.line);
      assert.match(hover, /self \d/);
      assert.match(hover, /stack of the largest, innermost first/);
      assert.match(hover, new RegExp(`train\\.py:${top.line} step`));
      assert.match(hover, /library frame/);
      // On demand, the hover lists the library frames it had collapsed (torch's own, by their place in torch).
      assert.doesNotMatch(hover, /torch\/optim\//);
      await s.page.locator('.monaco-hover-content a', { hasText: 'Show library frames' }).first().click();
      await s.page.keyboard.press('Escape');
      const expanded = await s.editor.hover(top.line);
      assert.match(expanded, /Hide library frames/);
      assert.match(expanded, /torch\/\S+\.py:\d+ \S+ \(library\)/);
      await s.page.locator('.monaco-hover-content a', { hasText: 'Hide library frames' }).first().click();
      await s.page.keyboard.press('Escape');
      assert.match(await s.editor.hover(top.line), /Show library frames/);
      await s.page.keyboard.press('Escape');
      // The kinds of the line's memory, as the CLI gives them, in the hover and on the lens.
      const hoverText = (await s.editor.hover(top.line)).replace(/\s+/g, ' ');
      await s.page.keyboard.press('Escape');
      for (const k of top.kinds) assert.ok(hoverText.includes(k.kind), `hover names ${k.kind}: ${hoverText}`);
      const lenses = await s.editor.codeLenses();
      assert.ok(
        lenses.some((l) => /live at peak · \d+ tensors/.test(l)),
        lenses.join(' | '),
      );
      assert.ok(
        lenses.some((l) => l.includes(`tensors · ${mainKind(top)} ·`)),
        `a lens names ${mainKind(top)}: ${lenses.join(' | ')}`,
      );
      await s.page.locator('.editor-instance .codelens-decoration a', { hasText: 'live at peak' }).first().click();
      await webviewContent(s.page).locator('[data-fact="peak"]').waitFor({ timeout: 60_000 });
      // The summary page the lens opened: its kind column holds each line's main kind, the CLI's: each line's main kind, the CLI's.
      await webviewContent(s.page).locator('tr:not(.bucket) td.kind').first().waitFor({ timeout: 60_000 });
      const rows = await webviewContent(s.page).locator('tr:not(.bucket) td.kind').allInnerTexts();
      const all = JSON.parse(
        execFileSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'analyze', B64, '--json', '--top', '20'], { encoding: 'utf8' }),
      ) as { lines: JsonLine[] };
      assert.deepEqual(rows, all.lines.filter((l) => l.self_bytes > 0).map(mainKind));
      await s.workbench.openFile('train.py');
    },
  );

  e2e(
    'assistants: VS Code lists the Headroom tools, and invoking the summary tool gives the summary page’s peak and top line',
    () => s!,
    async (s) => {
      const page = webviewContent(s.page);
      const peak = page.locator('[data-fact="peak"]');
      await peak.waitFor({ timeout: 60_000 });
      const exact = await peak.getAttribute('data-bytes');
      const top = (await page.locator('table tr td a').first().innerText()).trim();
      await s.workbench.runCommand('Headroom: Show What Assistants See');
      const doc = s.page.locator('.editor-group-container.active .view-lines', { hasText: 'tools registered' }).first();
      await doc.waitFor({ timeout: 60_000 });
      const text = (await doc.innerText()).replace(/\u00a0/g, ' ');
      assert.match(text, /tools registered: headroom_summary, headroom_explain_oom, headroom_leaks, headroom_lint, headroom_compare/);
      assert.ok(exact && text.includes(`(${exact} B)`), `${exact} in\n${text}`);
      assert.ok(text.includes(`${top} `), `${top} in\n${text}`);
      await s.workbench.runCommand('View: Revert and Close Editor');
    },
  );

  e2e(
    'toggling removes the annotations, and toggling again brings them back',
    () => s!,
    async (s) => {
      await s.workbench.runCommand('Headroom: Toggle Memory Annotations');
      await s.page.waitForTimeout(500);
      assert.deepEqual(await s.editor.afterDecorations(), []);
      await s.workbench.runCommand('Headroom: Toggle Memory Annotations');
      await s.page.waitForFunction(() => document.querySelectorAll('.editor-instance .view-lines span').length > 0);
      const decos = await waitFor(
        'the after-line decorations back',
        () => s.editor.afterDecorations(),
        (d) => d.length > 0,
      );
      assert.ok(decos.length > 0);
    },
  );

  e2e(
    'edits move the annotations with their lines, and a changed file marks them stale',
    () => s!,
    async (s) => {
      const top = analyze(B64).reduce((a, b) => (b.self_bytes > a.self_bytes ? b : a));
      const decosOnce = (what: string, want: (d: { line: number; text: string }[]) => boolean) =>
        waitFor(what, () => s.editor.afterDecorations(), want);
      await s.editor.typeAt(1, ['Enter', 'Enter']);
      let decos = await decosOnce(`a stale decoration on line ${top.line + 2}`, (d) =>
        d.some((x) => x.line === top.line + 2 && /stale/.test(x.text)),
      );
      const moved = decos.find((d) => d.line === top.line + 2);
      assert.ok(moved, JSON.stringify(decos));
      assert.match(moved.text, /^▲ ?[\d.]+ \S+ · stale$/);
      assert.ok(near(figure(moved.text), top.self_bytes));
      // Undone: the text matches the recorded content again, so the figures are current again.
      await s.page.keyboard.press('Control+Z');
      await s.page.keyboard.press('Control+Z');
      decos = await decosOnce(`a current decoration on line ${top.line}`, (d) =>
        d.some((x) => x.line === top.line && !/stale/.test(x.text)),
      );
      const back = decos.find((d) => d.line === top.line);
      assert.ok(back && !/stale/.test(back.text), JSON.stringify(decos));
    },
  );

  e2e(
    'a snapshot file opens in its own editor; any other pickle opens as usual, without complaint',
    () => s!,
    async (s) => {
      await s.workbench.openFile('b128.pickle');
      assert.equal(await s.workbench.activeFile(), 'b128.pickle');
      // The summary beside the code (from the lens) may be open too: one of the webviews shows b128.
      const truth = JSON.parse(readFileSync(B128.replace(/\.pickle$/, '.truth.json'), 'utf8')) as { requested_bytes_peak: number };
      const shown = async () => {
        const out: number[] = [];
        for (let i = 0; i < (await s.page.locator('iframe.webview.ready').count()); i++) {
          const peak = webviewContent(s.page, i).locator('[data-fact="peak"]');
          if (await peak.count()) out.push(Number(await peak.getAttribute('data-bytes')));
        }
        return out;
      };
      const peaks = await waitFor(`a summary showing the peak of b128 (${truth.requested_bytes_peak} B)`, shown, (p) =>
        p.includes(truth.requested_bytes_peak),
      );
      assert.ok(peaks.includes(truth.requested_bytes_peak), `${JSON.stringify(peaks)} vs ${truth.requested_bytes_peak}`);
      await s.workbench.openFile('other.pickle');
      // The default editor's notice for a binary file, and no error from Headroom.
      await s.page.locator('.editor-instance', { hasText: 'binary' }).first().waitFor({ timeout: 30_000 });
      const toasts = s.page.locator('.notification-toast', { hasText: 'Reading other.pickle' });
      await waitFor(
        'the toast "Reading other.pickle" to close',
        () => toasts.count(),
        (n) => n === 0,
      );
      assert.deepEqual(
        (await s.workbench.notifications()).filter((n) => /other\.pickle|Headroom/.test(n)),
        [],
      );
      await s.workbench.openFile('train.py');
    },
  );

  e2e(
    'a snapshot from another machine maps through headroom.pathMappings',
    () => s!,
    async (s) => {
      await openSnapshot(s, 'remote.pickle');
      const expected = analyze(B64);
      const top = expected.reduce((a, b) => (b.self_bytes > a.self_bytes ? b : a));
      const decos = await waitFor(
        `a decoration on line ${top.line}`,
        () => s.editor.afterDecorations(),
        (d) => d.some((x) => x.line === top.line),
      );
      assert.ok(near(figure(decos.find((d) => d.line === top.line)!.text), top.self_bytes));
    },
  );

  e2e(
    'compare shows a signed figure on a line whose memory changed',
    () => s!,
    async (s) => {
      await s.workbench.runCommand('Headroom: Compare Snapshots…');
      await s.workbench.answerFileDialog(join(s.workspace, 'b64.pickle'));
      await s.workbench.answerFileDialog(join(s.workspace, 'b128.pickle'));
      await s.workbench.openFile('train.py');
      const before = analyze(B64);
      const afterLines = analyze(B128);
      const decos = await waitFor(
        'a decoration compared with b64.pickle',
        () => s.editor.afterDecorations(),
        (d) => d.some((x) => / vs b64\.pickle/.test(x.text)),
      );
      const signed = decos.filter((d) => / vs b64\.pickle/.test(d.text));
      assert.ok(signed.length > 0, JSON.stringify(decos));
      for (const d of signed) {
        const delta =
          (afterLines.find((l) => l.line === d.line)?.self_bytes ?? 0) - (before.find((l) => l.line === d.line)?.self_bytes ?? 0);
        assert.notEqual(delta, 0);
        const shown = figure(d.text.replace('−', '-').replace(/^([+-])/, '$1'), '[+-]');
        assert.ok(near(shown, Math.abs(delta)), `line ${d.line}: ${d.text} vs ${delta}`);
        assert.equal(d.text.startsWith('+'), delta > 0);
      }
    },
  );
});
