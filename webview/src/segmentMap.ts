import type { DoctorJson } from '../../extension/src/core/protocol';
import { formatBytes as bytes } from '../../extension/src/shared/format';
import { el } from './dom';

type Oom = DoctorJson['ooms'][number];

/**
 * The segments at the OOM as bars, widths to scale with the biggest: allocated, pending (freed,
 * waiting on a stream) and free runs. Free runs that could hold the request are marked: with none,
 * the free bytes exist but in pieces.
 */
export function renderSegmentMap(o: Oom): HTMLElement {
  const box = el('div');
  box.className = 'segmap';
  const { rows, total } = o.segments;
  const biggest = Math.max(1, ...rows.map((r) => r.size));
  const fits = rows.some((r) => r.runs.some(([st, b]) => st === 'free' && b >= o.request));
  box.append(
    el(
      'h3',
      `Segments at the OOM${rows.length < total ? ` (the ${rows.length} biggest of ${total})` : ''}: a ${bytes(o.request)} request needs one free run that large — ${fits ? 'one is marked' : 'none is'}`,
    ),
  );
  // The key to the bars' colours, and their scale (widths are to scale with the biggest).
  const key = el('div', undefined, 'segkey');
  for (const [cls, label] of [
    ['allocated', 'allocated'],
    ['pending', 'pending free'],
    ['free', 'free'],
    ['free fits', `free, fits ${bytes(o.request)}`],
  ] as const) {
    const item = el('span');
    item.append(el('span', undefined, `run ${cls} swatch`), el('span', label));
    key.append(item);
  }
  key.append(el('span', `longest bar = ${bytes(biggest)}`, 'segscale'));
  box.append(key);
  for (const r of rows) {
    const row = el('div');
    row.className = 'segrow';
    const bar = el('div');
    bar.className = 'seg';
    bar.style.width = `${Math.max(0.5, (70 * r.size) / biggest)}%`;
    for (const [st, b] of r.runs) {
      const run = el('span');
      run.className = `run ${st}${st === 'free' && b >= o.request ? ' fits' : ''}`;
      run.style.flexGrow = String(b);
      run.title = `${st} ${bytes(b)}`;
      run.dataset.bytes = String(b);
      bar.append(run);
    }
    row.append(
      bar,
      el(
        'span',
        `${bytes(r.size)} ${r.pool}${r.private ? ' (private)' : ''}${r.expandable ? ' expandable' : ''}${r.more ? `, ${r.more} more runs` : ''}`,
        'seglabel',
      ),
    );
    box.append(row);
  }
  return box;
}
