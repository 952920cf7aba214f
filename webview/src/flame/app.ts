import type { FlameInit, FlameNode, ToFlame } from '../../../extension/src/core/flame/protocol';
import { count } from '../../../extension/src/shared/format';
import type { FlameHost } from './host';
import { findNode, hasPruned, keyOf, layoutFlame, parentsOf, pathTo, samePath } from './layout';
import type { FlameRect } from './layout';
import { FlameCanvas, ROW_PX } from './canvas';
import { accessibleName, fillCrumbs, fillDetails, foundText } from './render';
import { searchFlame } from './search';
import type { FlameMatches } from './search';

/** The narrowest frame drawn, in CSS pixels (the host already left out what is under half a pixel at 4K). */
export const DRAW_MIN_PX = 1;

export interface FlameDom {
  title: HTMLElement;
  instant: HTMLElement;
  crumbs: HTMLElement;
  graph: HTMLElement;
  canvas: HTMLCanvasElement;
  tooltip: HTMLElement;
  details: HTMLElement;
  goto: HTMLButtonElement;
  search: HTMLInputElement;
  found: HTMLElement;
  status: HTMLElement;
  message: HTMLElement;
}

const NO_MATCHES: FlameMatches = { nodes: [], ids: new Set(), bytes: 0 };

/** The page's state (the tree of one instant, the zoom, the selection, the search) and its drawing. */
export class FlameApp {
  init: FlameInit | undefined;
  parents = new Map<number, FlameNode>();
  /** The zoom: the top first, the frame that spans the width last. */
  path: FlameNode[] = [];
  selected: FlameNode | undefined;
  matches = NO_MATCHES;
  private matchAt = -1;
  rects = new Map<number, FlameRect>();
  private laid: FlameRect[] = [];
  readonly chart: FlameCanvas;
  private expanded = new Set<number>();
  /** For tests and the benchmark: how many times, and how long the last draw took. */
  renders = 0;
  lastRenderMs = 0;

  constructor(
    private readonly host: FlameHost,
    readonly dom: FlameDom,
  ) {
    dom.search.value = host.getState()?.query ?? '';
    this.chart = new FlameCanvas(dom.canvas);
  }

  get root(): FlameNode | undefined {
    return this.init?.root;
  }

  onMessage(m: ToFlame): void {
    if (m.type === 'empty') {
      this.init = undefined;
      this.path = [];
      this.dom.message.textContent = m.message;
      this.dom.message.hidden = false;
      this.rects.clear();
      this.dom.canvas.width = 0;
      this.dom.crumbs.replaceChildren();
      this.dom.details.replaceChildren();
      this.dom.instant.textContent = '';
      return;
    }
    if (m.type === 'subtree') {
      const n =
        m.session === this.init?.session && this.root ? (this.rects.get(m.node.id)?.node ?? findNode(this.root, m.node.id)) : undefined;
      if (!n) return;
      Object.assign(n, { children: m.node.children, otherBytes: m.node.otherBytes, otherCount: m.node.otherCount });
      parentsOf(n, this.parents);
      this.matches = searchFlame(this.init!.root, this.dom.search.value);
      return this.render();
    }
    const keys = this.path.length ? this.path.map(keyOf) : (this.host.getState()?.zoom ?? []);
    this.init = m;
    this.dom.message.hidden = true;
    this.dom.title.textContent = `Memory flame graph: ${m.title}`;
    this.dom.instant.textContent = m.instantLabel;
    this.parents = parentsOf(m.root);
    this.expanded.clear();
    this.path = samePath(keys, m.root);
    this.selected = this.path.at(-1);
    this.search(this.dom.search.value);
    this.expand(this.selected!);
  }

  /** Zooms into `n`: it spans the width, its ancestors stay above it as a breadcrumb. */
  zoom(n: FlameNode): void {
    if (!this.root) return;
    this.path = pathTo(n, this.root, this.parents);
    this.selected = n;
    this.render();
    this.announce(n);
    this.expand(n);
  }

  zoomOut(): void {
    const up = this.path.at(-2);
    if (up) this.zoom(up);
  }

  /** A frame zoomed into whose children were left out: asks the host for them, against its own width. */
  private expand(n: FlameNode): void {
    if (!this.init || n === this.root || this.expanded.has(n.id) || !hasPruned(n)) return;
    this.expanded.add(n.id);
    this.host.post({ type: 'expand', session: this.init.session, id: n.id });
  }

  select(n: FlameNode): void {
    this.selected = n;
    this.draw();
    const r = this.rects.get(n.id);
    const g = this.dom.graph;
    // Keep the frame's row in view when the graph is deeper than the panel.
    if (r && (r.depth * ROW_PX < g.scrollTop || (r.depth + 1) * ROW_PX > g.scrollTop + g.clientHeight))
      g.scrollTop = Math.max(0, r.depth * ROW_PX - g.clientHeight / 2);
    this.details();
    this.announce(n);
  }

  private details(): void {
    fillDetails(this.dom.details, this.dom.goto, this.selected, this.root?.bytes ?? 0);
  }

  open(n = this.selected): void {
    if (n?.file && this.init) this.host.post({ type: 'open', session: this.init.session, id: n.id });
  }

  /** Remembers the snapshot, the zoom and the search (getState), for a page shown again or reloaded. */
  private save(): void {
    if (this.init)
      this.host.setState({ path: this.init.path, device: this.init.device, query: this.dom.search.value, zoom: this.path.map(keyOf) });
  }

  search(q: string): void {
    this.matches = this.root ? searchFlame(this.root, q) : NO_MATCHES;
    this.matchAt = -1;
    this.render();
  }

  /** Enter in the search box: the next match (Shift: the previous), zoomed so that it is drawn. */
  nextMatch(step: 1 | -1): void {
    const list = this.matches.nodes;
    if (!list.length || !this.root) return;
    this.matchAt = (this.matchAt + step + list.length) % list.length;
    const m = list[this.matchAt]!;
    if (!this.rects.has(m.id)) {
      const parent = this.parents.get(m.id);
      this.zoom(parent ?? m);
      if (!this.rects.has(m.id)) this.zoom(m);
    }
    this.select(m);
    this.dom.found.textContent = `${this.foundText()} (${this.matchAt + 1} of ${count(list.length)})`;
  }

  private foundText(): string {
    return foundText(this.dom.search.value, this.matches, this.root?.bytes ?? 0);
  }

  render(): void {
    const root = this.root;
    if (!root) return;
    const t0 = performance.now();
    this.laid = layoutFlame(this.path, this.width(), DRAW_MIN_PX);
    this.rects = new Map(this.laid.map((r) => [r.node.id, r]));
    if (this.selected && !this.rects.has(this.selected.id)) this.selected = this.path.at(-1);
    this.draw();
    this.save();
    fillCrumbs(this.dom.crumbs, this.path, (n) => this.zoom(n));
    this.details();
    this.dom.found.textContent = this.foundText();
    this.renders++;
    this.lastRenderMs = performance.now() - t0;
  }

  /** The graph's width for frames: the panel's, less a vertical scroll bar. */
  width(): number {
    return this.dom.graph.clientWidth;
  }

  private draw(): void {
    this.chart.draw(this.laid, this.width(), {
      selected: this.selected?.id,
      matches: this.matches.ids,
      searching: this.dom.search.value.trim() !== '',
    });
    this.dom.canvas.dataset.frames = String(this.laid.length);
  }

  private announce(n: FlameNode): void {
    if (this.root) this.dom.status.textContent = accessibleName(n, this.root.bytes);
  }
}
