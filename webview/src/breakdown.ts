import type { BreakdownView, FromWebview } from '../../extension/src/core/protocol';
import { formatBytes as bytes } from '../../extension/src/shared/format';
import { el } from './dom';
import { plain as shown } from '../../extension/src/shared/text';

/**
 * The model code beneath a top line, as `headroom analyze` prints it: a row per frame chain,
 * indented by depth, its bytes and share of the line, each row's frame a link that asks the host to
 * open it (by the row's place in the message: the host opens library files read-only). Text only.
 */
export function renderBreakdown(b: BreakdownView, index: number, cols: number, post: (m: FromWebview) => void): HTMLTableRowElement {
  const tr = el('tr', undefined, 'breakdown');
  tr.dataset.line = `${b.file}:${b.line}`;
  const td = el('td');
  td.colSpan = cols;
  const head = el('div', undefined, 'breakdown-head');
  head.append(el('span', `in library code beneath it${b.folded.length ? ` (folded: ${b.folded.join(', ')})` : ''}:`));
  const flame = el('button', 'Flame graph');
  flame.type = 'button';
  flame.className = 'flame';
  flame.title = 'Show the call tree at this instant as a flame graph';
  flame.addEventListener('click', () => post({ type: 'showFlameGraph' }));
  head.append(flame);
  const table = el('table', undefined, 'breakdown-rows');
  b.rows.forEach((r, i) => {
    const row = el('tr');
    row.dataset.depth = String(r.depth);
    row.dataset.bytes = String(r.bytes);
    const frame = el('td', undefined, 'frame');
    frame.style.paddingLeft = `${Math.min(r.depth, 12) * 1.5}em`;
    frame.append(document.createTextNode(shown(r.names.join(' › '))));
    if (r.where) {
      const link = el('a', r.where, 'where');
      link.href = '#';
      link.title = shown(`${r.file}:${r.line}`);
      link.addEventListener('click', (ev) => {
        ev.preventDefault();
        post({ type: 'openBreakdownRow', breakdown: index, row: i });
      });
      frame.append(link);
    }
    row.append(el('td', bytes(r.bytes), 'bytes'), el('td', `${(r.share * 100).toFixed(1)}%`, 'bytes'), frame);
    table.append(row);
  });
  td.append(head, table);
  tr.append(td);
  return tr;
}
