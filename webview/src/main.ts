import type { DoctorJson, FromWebview, ModuleRow, ToWebview } from '../../extension/src/core/protocol';
import { renderBreakdown } from './breakdown';
import { formatBytes as bytes } from '../../extension/src/shared/format';
import { el } from './dom';
import { plain as shown } from '../../extension/src/shared/text';
import { renderRanks } from './ranks';
import { renderSegmentMap } from './segmentMap';
import { heldAt, renderScale } from './scale';
import { renderWhatif, typedIn } from './whatif';

declare function acquireVsCodeApi(): { postMessage(m: FromWebview): void };

const vscode = acquireVsCodeApi();
const root = document.getElementById('root')!;

/** "file.py:38", opening the line through the host's path mapping; the full path in its title. */
function lineLink(file: string, line: number, fn: string): HTMLAnchorElement {
  const link = el('a', `${file.split('/').pop()}:${line}`);
  link.href = '#';
  link.title = shown(`${file}:${line} (${fn})`);
  link.addEventListener('click', (ev) => {
    ev.preventDefault();
    vscode.postMessage({ type: 'openLine', file, line });
  });
  return link;
}

function render(m: Extract<ToWebview, { type: 'summary' }>): void {
  const r = m.report;
  root.replaceChildren();
  root.append(el('h1', m.title));
  const tl = el('button', 'Show memory timeline');
  tl.type = 'button';
  tl.className = 'timeline';
  tl.addEventListener('click', () => vscode.postMessage({ type: 'showTimeline' }));
  root.append(tl);
  const facts = el('dl');
  /** A labelled figure; byte figures also carry their exact value for tools and tests. */
  const fact = (k: string, v: string, id: string, exact?: number): void => {
    const dd = el('dd', v);
    dd.dataset.fact = id;
    if (exact !== undefined) {
      dd.dataset.bytes = String(exact);
      dd.title = `${exact.toLocaleString('en-US')} bytes`;
    }
    facts.append(el('dt', k), dd);
  };
  fact('Device', String(r.device), 'device');
  fact('Peak (requested)', bytes(r.peak.requested_bytes), 'peak', r.peak.requested_bytes);
  fact('End (requested)', bytes(r.end.requested_bytes), 'end', r.end.requested_bytes);
  fact('Reserved peak', bytes(r.reserved_bytes.peak), 'reserved-peak', r.reserved_bytes.peak);
  fact('Trace events', String(r.events), 'events');
  root.append(facts);
  // The same kinds as the timeline's, the hovers' and `headroom analyze`'s (a paragraph: it wraps).
  if (r.kinds.length) {
    const p = el('p', `By kind: ${r.kinds.map((k) => `${k.kind} ${bytes(k.bytes)}`).join(' · ')}`, 'kinds');
    p.dataset.fact = 'kinds';
    root.append(p);
  }
  const table = el('table');
  table.append(el('caption', 'Live at the peak, by source line (self: innermost line of your code)'));
  const head = el('tr');
  head.append(el('th', 'self', 'bytes'), el('th', 'inclusive', 'bytes'), el('th', 'blocks', 'bytes'), el('th', 'kind'), el('th', 'line'));
  table.append(head);
  for (const l of r.lines.filter((x) => x.self_bytes > 0)) {
    const tr = el('tr');
    const where = el('td');
    where.append(lineLink(l.file, l.line, l.function), document.createTextNode(shown(` ${l.function}`)));
    tr.append(
      el('td', bytes(l.self_bytes), 'bytes'),
      el('td', bytes(l.inclusive_bytes), 'bytes'),
      el('td', String(l.blocks), 'bytes'),
      kindCell(l.kinds),
      where,
    );
    table.append(tr);
    // A line holding a large share: the model code beneath it, right under it.
    const bi = m.breakdowns?.findIndex((b) => b.file === l.file && b.line === l.line) ?? -1;
    if (bi >= 0) table.append(renderBreakdown(m.breakdowns![bi]!, bi, 4, (msg) => vscode.postMessage(msg)));
  }
  const labels: Record<string, string> = {
    backward: 'autograd backward (no Python stack)',
    before_recording: 'allocated before recording',
    library: 'library code only',
    no_stack: 'no stack recorded',
  };
  for (const b of r.buckets) {
    const tr = el('tr', undefined, 'bucket');
    const site = b.sites?.[0];
    tr.append(
      el('td', bytes(b.bytes), 'bytes'),
      el('td', ''),
      el('td', String(b.blocks), 'bytes'),
      kindCell(b.kinds),
      el('td', labels[b.kind] + (site ? ` — via backward() at ${site.file.split('/').pop()}:${site.line}` : '')),
    );
    table.append(tr);
  }
  root.append(table);
  if (m.modules?.length) root.append(moduleTable(m.modules));
  if (m.ranks) root.append(renderRanks(m.ranks, lineLink));
  if (m.doctor) renderDoctor(m.doctor);
  if (m.recording) for (const line of m.recording.split('\n')) root.append(el('p', line, 'note recording'));
  root.append(el('section', undefined, 'whatif'), el('section', undefined, 'scale'));
  const a = r.allocated;
  root.append(
    el(
      'p',
      a.exact
        ? `Requested and allocated bytes are PyTorch's own: the allocator replay placed every block where the trace did (allocated peak ${bytes(a.peak_bytes)}).`
        : `Requested bytes are exact (what PyTorch counts in requested_bytes); allocated bytes are an estimate: ${a.why}.`,
      'note',
    ),
  );
}

/** A row's kind: the one holding most of its bytes ("+" when others hold over a tenth); all of them in the tooltip. */
function kindCell(kinds: readonly { kind: string; bytes: number }[]): HTMLTableCellElement {
  const all = kinds.reduce((t, k) => t + k.bytes, 0);
  const top = kinds[0];
  const td = el('td', top ? `${top.kind}${top.bytes < 0.9 * all ? '+' : ''}` : '', 'kind');
  if (top) td.dataset.kind = top.kind;
  td.title = kinds.map((k) => `${k.kind} ${bytes(k.bytes)}`).join(', ');
  return td;
}

/** Live bytes by the module that made them (forward or backward), indented under their parents. */
function moduleTable(rows: ModuleRow[]): HTMLTableElement {
  const table = el('table');
  table.className = 'modules';
  table.append(el('caption', 'Live at the same instant, by module (the nn.Module whose forward or backward allocated it)'));
  const head = el('tr');
  head.append(
    el('th', 'inclusive', 'bytes'),
    el('th', 'self', 'bytes'),
    el('th', 'forward', 'bytes'),
    el('th', 'backward', 'bytes'),
    el('th', 'module'),
  );
  table.append(head);
  for (const r of rows) {
    const tr = el('tr');
    tr.dataset.module = r.path;
    const name = el(
      'td',
      r.path
        .split('.')
        .slice(r.depth ? -1 : 0)
        .join('.'),
    );
    name.style.paddingLeft = `${Math.min(r.depth, 12)}em`;
    name.title = shown(r.path);
    tr.append(
      el('td', bytes(r.inclusiveBytes), 'bytes'),
      el('td', bytes(r.selfBytes), 'bytes'),
      el('td', bytes(r.forwardBytes), 'bytes'),
      el('td', bytes(r.backwardBytes), 'bytes'),
      name,
    );
    table.append(tr);
  }
  return table;
}

/** The OOM doctor's verdicts with a button for each remedy a re-run can apply, and the leak verdict. */
function renderDoctor(d: DoctorJson): void {
  for (const o of d.ooms) {
    const sec = el('section');
    sec.className = 'doctor';
    sec.append(el('h2', `OOM: ${o.kind}`), el('p', o.why));
    for (const p of o.pools)
      sec.append(
        el(
          'p',
          `${p.pool} pool${p.private ? ' (private)' : ''}: ${bytes(p.free)} free of ${bytes(p.reserved)}, largest free block ${bytes(p.largestFree)}`,
          'pool',
        ),
      );
    if (o.segments.rows.length) sec.append(renderSegmentMap(o));
    const list = el('ul');
    for (const r of o.remedies) {
      const li = el('li');
      li.append(el('strong', r.title), document.createTextNode(shown(` — ${r.change}. Expected: ${r.effect}. `)));
      if (r.allocConf) {
        const b = el('button', 'Re-run with this setting');
        b.type = 'button';
        b.dataset.remedy = r.id;
        const conf = r.allocConf;
        b.addEventListener('click', () => vscode.postMessage({ type: 'remedy', allocConf: conf }));
        li.append(b);
      }
      if (r.capGib) {
        const cap = r.capGib;
        const b = el('button', `Re-run under a ${cap} GiB cap`);
        b.type = 'button';
        b.dataset.remedy = r.id;
        b.addEventListener('click', () => vscode.postMessage({ type: 'remedy', capGib: cap }));
        li.append(b);
      }
      if (r.line) {
        const at = r.line;
        const b = el('button', 'Open the line');
        b.type = 'button';
        b.dataset.openLine = r.id;
        b.addEventListener('click', () => vscode.postMessage({ type: 'openLine', file: at.file, line: at.line }));
        li.append(b);
      }
      list.append(li);
    }
    sec.append(list);
    root.append(sec);
  }
  if (d.leak) {
    const sec = el('section');
    sec.className = 'leak';
    sec.append(el('h2', d.leak.leaking ? 'Leak' : 'No leak'));
    for (const line of d.leak.summary) sec.append(el('p', line));
    if (d.leak.lines.length) {
      const list = el('ul');
      for (const l of d.leak.lines) {
        const li = el('li');
        li.append(lineLink(l.file, l.line, l.name), document.createTextNode(shown(` ${l.name} ${l.keeps}`)));
        list.append(li);
      }
      sec.append(list);
    }
    root.append(sec);
  }
}

window.addEventListener('message', (ev: MessageEvent<ToWebview>) => {
  const m = ev.data;
  if (m?.type === 'summary') render(m);
  else if (m?.type === 'ranks') root.querySelector('section.ranks')?.replaceWith(renderRanks(m.ranks, lineLink));
  else if (m?.type === 'whatif') {
    const sec = root.querySelector('section.whatif');
    sec?.replaceWith(renderWhatif(m.whatif, (msg) => vscode.postMessage(msg), typedIn(sec)));
  } else if (m?.type === 'scale') {
    const sec = root.querySelector('section.scale');
    sec?.replaceWith(renderScale(m.scale, (msg) => vscode.postMessage(msg), heldAt(sec)));
  } else if (m?.type === 'error') root.textContent = shown(m.message);
});
vscode.postMessage({ type: 'ready' });
