import type { ElementInfo, KeyingName, LodFrame, TimelineInit } from '../../../extension/src/core/timeline/protocol';
import { el } from '../dom';
import { pinnedPanel } from './details';
import { renderLegend } from './legend';

/** What the side panel and the legend show after a draw. */
export interface SideScene {
  init: Readonly<TimelineInit>;
  keying: KeyingName;
  frame: LodFrame | undefined;
  /** The frame's column the legend describes (-1: none), and how it is named. */
  column: number;
  where: string;
  pinnedId: number | null;
  pinned: ElementInfo | undefined;
  colorOf: (key: number) => number;
  open: (file: string, line: number) => void;
  unpin: () => void;
}

/** The legend and the pinned block's panel beside the plot. */
export class SidePanel {
  private key = '';

  constructor(
    private readonly legend: HTMLElement,
    private readonly side: HTMLElement,
  ) {}

  /** The colours changed: the next show rebuilds even if the figures did not. */
  recolor(): void {
    this.key = '';
  }

  show(s: SideScene): void {
    // The DOM is rebuilt only when what it shows changed: a rebuild costs a layout in the next frame.
    // What the legend shows at that column: its bands' total and count (a new frame for the same
    // moment usually changes neither).
    const { frame: f, column: c } = s;
    let sum = 0;
    if (f && c >= 0) for (let b = f.bandOff[c]!; b < f.bandOff[c + 1]!; b++) sum += f.bandBytes[b]! * (f.bandKey[b]! + 1);
    const bands = f && c >= 0 ? f.bandOff[c + 1]! - f.bandOff[c]! : -1;
    const key = `${sum}|${bands}|${s.where}|${s.keying}|${s.pinnedId}|${s.pinned ? 1 : 0}`;
    if (key === this.key) return;
    this.key = key;
    const m = s.init;
    renderLegend(this.legend, m.keys[s.keying], f, c, s.colorOf, s.open, s.keying === 'category' ? m.categoryRules : undefined, s.where);
    const box = s.pinned
      ? pinnedPanel(s.pinned, m.timeRange?.[0] ?? null, s.open, s.unpin)
      : el(
          'p',
          s.pinnedId !== null
            ? 'Loading the pinned block…'
            : 'Click a band to pin it: its stack, each frame opening its line. Click anywhere to show the code at that moment.',
          'muted',
        );
    this.side.replaceChildren(box);
  }
}
