import type { PoolSummary, SegState, ToTimeline } from '../../../extension/src/core/timeline/protocol';
import { formatBytes as bytes, count } from '../../../extension/src/shared/format';
import { el } from '../dom';
import type { Theme } from './colors';
import { cssOf } from './colors';
import { SegmentsKey } from './segmentsKey';

type SegmentsMsg = Extract<ToTimeline, { type: 'segments' }>;

export interface SegFilter {
  pool: string;
  request: string;
  onlyFree: boolean;
}

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 2 ** 20,
  mb: 2 ** 20,
  mib: 2 ** 20,
  g: 2 ** 30,
  gb: 2 ** 30,
  gib: 2 ** 30,
};

/** "1 GiB", "200MiB", "1.5g", "4096": bytes, or undefined. */
export function parseSize(s: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(s);
  const u = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  return m && u ? Math.round(Number(m[1]) * u) : undefined;
}

const poolKey = (g: SegState) =>
  `${g.pool} pool${g.poolId[0] || g.poolId[1] ? ` (${g.poolId[0]}, ${g.poolId[1]})` : ''}, stream ${g.stream}`;
const ROW = 18;

/**
 * Segments at the instant: a table per pool (what a request could use without a new cudaMalloc)
 * and one bar per segment with its blocks: allocated, pending free, free. Holes (free blocks
 * between used ones) are hatched; free blocks a request would fit in are outlined.
 */
export class SegmentsView {
  readonly root = el('div', undefined, 'segments');
  private readonly table = el('table');
  private readonly verdict = el('p', '', 'verdict');
  private readonly scroller = el('div', undefined, 'seg-scroll');
  private readonly canvas = el('canvas');
  private readonly key = new SegmentsKey();
  private msg: SegmentsMsg | undefined;
  private rows: SegState[] = [];

  constructor(
    private theme: Theme,
    readonly filter: SegFilter,
    private readonly onFilter: () => void,
  ) {
    const bar = el('div', undefined, 'toolbar');
    const pool = el('select');
    pool.setAttribute('aria-label', 'Pool');
    pool.addEventListener('change', () => this.set({ pool: pool.value }));
    const req = el('input');
    req.placeholder = 'request, e.g. 1 GiB';
    req.value = filter.request;
    req.setAttribute('aria-label', 'Request size to check');
    req.addEventListener('input', () => this.set({ request: req.value }));
    const only = el('input');
    only.type = 'checkbox';
    only.checked = filter.onlyFree;
    only.id = 'only-free';
    only.addEventListener('change', () => this.set({ onlyFree: only.checked }));
    const lab = el('label', ' only segments with free space');
    lab.prepend(only);
    bar.append(pool, req, lab);
    // The axis sticks to the top of the scrolling bars, so it has the canvas's width and stays in view.
    this.scroller.append(this.key.axis, this.canvas);
    this.scroller.addEventListener('scroll', () => this.paint());
    // The table scrolls sideways inside its own box rather than pushing out of a narrow panel.
    const tableBox = el('div', undefined, 'seg-table');
    tableBox.append(this.table);
    this.root.append(bar, this.verdict, tableBox, this.key.legend, this.scroller);
    this.canvas.setAttribute('role', 'img');
    // The block under the pointer, as the canvas's own tooltip.
    this.canvas.addEventListener('pointermove', (e) => {
      const hit = this.blockAt(e.offsetX, e.offsetY);
      const b = hit?.block;
      this.canvas.title =
        hit && b
          ? `${b.state} block of ${bytes(b.size)} at 0x${b.address.toString(16)}, in a ${bytes(hit.seg.size)} segment (${poolKey(hit.seg)})`
          : '';
    });
  }

  private set(f: Partial<SegFilter>): void {
    Object.assign(this.filter, f);
    this.onFilter();
    this.render();
  }

  setTheme(t: Theme): void {
    this.theme = t;
    this.key.setTheme(t, parseSize(this.filter.request));
    this.paint();
  }

  show(m: SegmentsMsg): void {
    this.msg = m;
    const sel = this.root.querySelector('select')!;
    sel.replaceChildren(el('option', 'all pools'), ...m.pools.map((p) => el('option', p.key)));
    sel.firstElementChild!.setAttribute('value', '');
    sel.value = m.pools.some((p) => p.key === this.filter.pool) ? this.filter.pool : '';
    this.render();
  }

  private render(): void {
    const m = this.msg;
    if (!m) return;
    const want = parseSize(this.filter.request);
    const pools = m.pools.filter((p) => !this.filter.pool || p.key === this.filter.pool);
    this.table.replaceChildren(this.header(want !== undefined), ...pools.map((p) => this.poolRow(p, want)));
    const free = m.pools.reduce((t, p) => t + p.free, 0);
    const reserved = m.pools.reduce((t, p) => t + p.reserved, 0);
    const largest = Math.max(0, ...pools.map((p) => p.largestFree));
    let text = `At event #${count(m.index)}: ${bytes(reserved)} reserved in ${m.segments.length} segments, ${bytes(free)} of it free (reserved but unallocated).`;
    if (want !== undefined) {
      text +=
        largest >= want
          ? ` A ${bytes(want)} request fits in a free block of ${bytes(largest)}.`
          : ` A ${bytes(want)} request does not fit: the largest free block${this.filter.pool ? ' in this pool' : ''} is ${bytes(largest)}, though ${bytes(free)} is free in pieces, so the allocator must cudaMalloc a new segment (or fail).`;
    }
    if (m.orphans) text += ` ${m.orphans} blocks lie in no segment (the trace and the dump disagree).`;
    this.verdict.textContent = text;
    this.rows = m.segments
      .filter(
        (g) =>
          (!this.filter.pool || poolKey(g) === this.filter.pool) && (!this.filter.onlyFree || g.blocks.some((b) => b.state === 'free')),
      )
      .sort((a, b) => b.size - a.size);
    this.canvas.style.height = `${Math.max(ROW, this.rows.length * ROW)}px`;
    this.key.setScale(this.rows[0]?.size ?? 0);
    this.key.setTheme(this.theme, want);
    this.canvas.setAttribute('aria-label', `${this.rows.length} segments, largest ${bytes(this.rows[0]?.size ?? 0)}`);
    this.paint();
  }

  private header(withFit: boolean): HTMLElement {
    const tr = el('tr');
    const cols: [string, string, boolean][] = [
      ['pool', 'Pool and stream', false],
      ['segments', 'Segments (cudaMalloc calls kept)', true],
      ['reserved', 'Reserved from CUDA', true],
      ['allocated', 'In blocks in use', true],
      ['pending', 'Freed, waiting on a stream', true],
      ['free', 'Reserved but unallocated', true],
      ['largest', 'The largest free block: the biggest request served without a new segment', true],
    ];
    if (withFit) cols.push(['fits?', 'Whether the request fits in a free block', false]);
    for (const [h, title, num] of cols) {
      const th = el('th', h, num ? 'bytes' : undefined);
      th.title = title;
      tr.append(th);
    }
    return tr;
  }

  private poolRow(p: PoolSummary, want: number | undefined): HTMLElement {
    const tr = el('tr');
    // "large, stream 0": the column's header already says pool; the cell's title has the whole key.
    const key = el('td', p.key.replace(/ pool\b/, ''));
    key.title = p.key;
    tr.append(key, el('td', String(p.segments), 'bytes'));
    for (const v of [p.reserved, p.allocated, p.pending, p.free, p.largestFree]) tr.append(el('td', bytes(v), 'bytes'));
    if (want !== undefined) tr.append(el('td', p.largestFree >= want ? 'yes' : 'no'));
    return tr;
  }

  /** Draws only the rows in view. */
  paint(): void {
    const c = this.canvas;
    const d = window.devicePixelRatio || 1;
    const top = Math.max(0, this.scroller.scrollTop - c.offsetTop);
    const vis = this.scroller.clientHeight || 300;
    c.width = Math.max(1, Math.round(c.clientWidth * d));
    c.height = Math.max(1, Math.round(Math.max(ROW, this.rows.length * ROW) * d));
    const ctx = c.getContext('2d')!;
    const t = this.theme;
    const want = parseSize(this.filter.request);
    const max = this.rows[0]?.size ?? 1;
    const w = c.width - 2 * d;
    const first = Math.floor(top / ROW);
    const last = Math.min(this.rows.length, Math.ceil((top + vis) / ROW) + 1);
    for (let r = first; r < last; r++) {
      const g = this.rows[r]!;
      const y = (r * ROW + 2) * d;
      const h = (ROW - 4) * d;
      const scale = Math.max(2 * d, (g.size / max) * w) / g.size;
      const firstUsed = g.blocks.findIndex((b) => b.state !== 'free');
      let lastUsed = -1;
      g.blocks.forEach((b, i) => {
        if (b.state !== 'free') lastUsed = i;
      });
      g.blocks.forEach((b, i) => {
        const x = d + (b.address - g.address) * scale;
        const bw = Math.max(1, b.size * scale);
        const hole = b.state === 'free' && firstUsed >= 0 && i > firstUsed && i < lastUsed;
        ctx.fillStyle =
          b.state === 'allocated' ? cssOf(t.palette[0]!) : b.state === 'pending' ? cssOf(t.palette[4]!) : hole ? t.peak : t.grid;
        ctx.globalAlpha = b.state === 'free' ? (hole ? 0.45 : 0.25) : 1;
        ctx.fillRect(x, y, bw, h);
        ctx.globalAlpha = 1;
        if (b.state === 'free' && want !== undefined && b.size >= want) {
          ctx.strokeStyle = t.allocated;
          ctx.lineWidth = 2 * d;
          ctx.strokeRect(x + d, y + d, bw - 2 * d, h - 2 * d);
        }
      });
    }
  }

  /** The block under a point of the canvas (CSS px), for the tooltip. */
  blockAt(cx: number, cy: number): { seg: SegState; block: SegState['blocks'][number] } | undefined {
    const g = this.rows[Math.floor(cy / ROW)];
    if (!g) return undefined;
    const max = this.rows[0]!.size;
    const w = this.canvas.clientWidth - 2;
    const scale = Math.max(2, (g.size / max) * w) / g.size;
    const addr = g.address + (cx - 1) / scale;
    const block = g.blocks.find((b) => addr >= b.address && addr < b.address + b.size);
    return block ? { seg: g, block } : undefined;
  }
}
