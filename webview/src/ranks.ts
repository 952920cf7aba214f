import type { RanksView } from '../../extension/src/core/protocol';
import { formatBytes as bytes, duration } from '../../extension/src/shared/format';
import { el } from './dom';

const b = (x: number | null): string => (x === null ? '—' : bytes(x));

/** Rows that differ between ranks: the spread, each rank's bytes, then what the row is (a line, a module). */
function spreadTable<R extends { bytes: (number | null)[]; spread: number }>(
  cls: string,
  caption: string,
  what: string,
  v: RanksView,
  rows: R[],
  name: (r: R) => HTMLElement,
  mark?: (tr: HTMLTableRowElement, r: R) => void,
): HTMLTableElement {
  const table = el('table');
  table.className = cls;
  table.append(el('caption', caption));
  const h = el('tr');
  h.append(el('th', 'spread', 'bytes'), ...v.ranks.map((r) => el('th', `rank ${r.rank}`, 'bytes')), el('th', what));
  table.append(h);
  for (const r of rows) {
    const tr = el('tr');
    mark?.(tr, r);
    tr.append(el('td', bytes(r.spread), 'bytes'), ...r.bytes.map((x) => el('td', b(x), 'bytes')), name(r));
    table.append(tr);
  }
  return table;
}

/**
 * A distributed run's ranks beside this rank's summary: each rank's peak (PyTorch's requested
 * bytes), reserved peak and memory outside PyTorch, the imbalance, the lines that differ most
 * between ranks, and where the other ranks stood when one ran out of memory.
 */
export function renderRanks(v: RanksView, lineLink: (file: string, line: number, fn: string) => HTMLElement): HTMLElement {
  const sec = el('section');
  sec.className = 'ranks';
  sec.append(el('h2', `Ranks (${v.ranks.length}): this is rank ${v.current}`));
  const table = el('table');
  table.append(el('caption', 'Each rank at its own peak'));
  const head = el('tr');
  head.append(
    el('th', 'rank'),
    el('th', 'peak', 'bytes'),
    el('th', 'reserved peak', 'bytes'),
    el('th', 'outside PyTorch', 'bytes'),
    el('th', 'OOMs', 'bytes'),
    el('th', 'snapshot'),
  );
  table.append(head);
  for (const r of v.ranks) {
    const tr = el('tr', undefined, r.rank === v.current ? 'current' : undefined);
    tr.dataset.rank = String(r.rank);
    const peak = el('td', b(r.peak), 'bytes');
    if (r.peak !== null) peak.dataset.bytes = String(r.peak);
    tr.append(
      el('td', String(r.rank)),
      peak,
      el('td', b(r.reservedPeak), 'bytes'),
      el('td', b(r.outsidePytorch), 'bytes'),
      el('td', String(r.ooms), 'bytes'),
      el('td', r.snapshot ?? '—'),
    );
    table.append(tr);
  }
  sec.append(table);
  if (v.imbalance !== null) {
    const p = el('p', `Imbalance (highest peak − lowest): ${bytes(v.imbalance)}`);
    p.dataset.fact = 'imbalance';
    p.dataset.bytes = String(v.imbalance);
    sec.append(p);
  }
  if (v.lines.length) {
    sec.append(
      spreadTable('rank-lines', 'Lines that differ most between ranks (bytes at each rank’s peak)', 'line', v, v.lines, (l) => {
        const where = el('td');
        where.append(lineLink(l.file, l.line, l.name));
        return where;
      }),
    );
  }
  if (v.modules.length)
    sec.append(
      spreadTable(
        'rank-modules',
        'Modules that differ most between ranks (self bytes at each rank’s peak)',
        'module',
        v,
        v.modules,
        (m) => el('td', m.path),
        (tr, m) => (tr.dataset.module = m.path),
      ),
    );
  if (v.linesNote) sec.append(el('p', v.linesNote, 'note'));
  if (v.oom) {
    sec.append(
      el(
        'p',
        `Rank ${v.oom.rank} ran out of memory at ${new Date(v.oom.timeUs / 1000).toISOString()}. The other ranks then (their last sample before it):`,
      ),
    );
    const list = el('ul');
    for (const o of v.oom.others)
      list.append(
        el(
          'li',
          `rank ${o.rank}: allocated ${bytes(o.allocated)}, reserved ${bytes(o.reserved)}, outside PyTorch ${b(o.outsidePytorch)} (${duration(o.ageUs)} before)`,
        ),
      );
    if (!v.oom.others.length) list.append(el('li', 'no other rank had a sample by then'));
    sec.append(list);
  }
  return sec;
}
