import type { FromWebview, ToWebview } from '../../extension/src/core/protocol';

declare function acquireVsCodeApi(): { postMessage(m: FromWebview): void };

const vscode = acquireVsCodeApi();
const root = document.getElementById('root')!;

function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = Math.abs(n);
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${n < 0 ? '-' : ''}${u === 0 ? v : v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2)} ${units[u]}`;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function render(m: Extract<ToWebview, { type: 'summary' }>): void {
  const r = m.report;
  root.replaceChildren();
  root.append(el('h1', m.title));
  const facts = el('dl');
  const fact = (k: string, v: string, id: string): void => {
    const dd = el('dd', v);
    dd.dataset.fact = id;
    facts.append(el('dt', k), dd);
  };
  fact('Device', String(r.device), 'device');
  fact('Peak (requested)', bytes(r.peak.requested_bytes), 'peak');
  fact('End (requested)', bytes(r.end.requested_bytes), 'end');
  fact('Reserved peak', bytes(r.reserved_bytes.peak), 'reserved-peak');
  fact('Trace events', String(r.events), 'events');
  root.append(facts);
  const table = el('table');
  table.append(el('caption', 'Live at the peak, by source line'));
  for (const l of r.lines) {
    const tr = el('tr');
    const link = el('a', `${l.file.split('/').pop()}:${l.line}`);
    link.href = '#';
    link.title = `${l.file}:${l.line}`;
    link.addEventListener('click', (ev) => {
      ev.preventDefault();
      vscode.postMessage({ type: 'openLine', file: l.file, line: l.line });
    });
    const where = el('td');
    where.append(link);
    tr.append(el('td', bytes(l.self_bytes)), el('td', bytes(l.inclusive_bytes)), where);
    table.append(tr);
  }
  for (const b of r.buckets) {
    const tr = el('tr');
    tr.append(el('td', bytes(b.bytes)), el('td', ''), el('td', b.kind.replace('_', ' ')));
    table.append(tr);
  }
  root.append(table);
}

window.addEventListener('message', (ev: MessageEvent<ToWebview>) => {
  const m = ev.data;
  if (m?.type === 'summary') render(m);
  else if (m?.type === 'error') root.textContent = m.message;
});
vscode.postMessage({ type: 'ready' });
