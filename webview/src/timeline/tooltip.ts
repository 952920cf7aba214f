import type { ElementInfo, LodRequest } from '../../../extension/src/core/timeline/protocol';
import { formatBytes as bytes, count, duration } from '../../../extension/src/shared/format';
import type { Placed } from './raster';

/**
 * What hovering a band says: a block's size, group, category, lifetime and line; or, for merged
 * small blocks, how many they are and how to see them one by one.
 */
export function describeBand(p: Placed & { request: LodRequest }, b: number, key: string, info: ElementInfo | undefined): string {
  const f = p.frame;
  const el = f.band[b]!;
  let c = 0;
  while (f.bandOff[c + 1]! <= b) c++;
  const at = `event #${count(f.sample[c]!)}`;
  if (el < 0)
    return `${f.bandCount[b]} small allocations, ${bytes(f.bandBytes[b]!)} · ${key}\n(each under ${bytes(p.request.minBandBytes)}: zoom in, or Ctrl+wheel to stretch y, to see them one by one)\n${at}`;
  if (!info) return `${bytes(f.bandBytes[b]!)} · ${key}\n${at}`;
  const user = info.stack.find((s) => s.user);
  const life =
    info.alloc < 0
      ? 'allocated before recording'
      : info.aliveAtEnd
        ? 'alive at the end'
        : info.freeTimeUs !== null && info.allocTimeUs !== null
          ? `lived ${duration(info.freeTimeUs - info.allocTimeUs)}`
          : `freed at #${info.free}`;
  return `${bytes(info.size)} · ${info.key}\n${info.category}${info.module ? ` in ${info.module}` : ''} · ${life}${user ? `\n${user.file.split('/').pop()}:${user.line} ${user.name}` : ''}\n${at}`;
}

/** A figure with its unit ("1.37 MiB", "#1,245", "12 ms"): one unbreakable run in the tooltip. */
const FIGURE = /#[\d,]+|-?\d[\d,]*(?:\.\d+)? (?:B|KiB|MiB|GiB|TiB|PiB|EiB|µs|ms|s|min)\b/g;

/**
 * Puts text into the tooltip line by line, each figure in a span.num that never wraps; the rest of
 * a long line (a path, a group's name) wraps inside the panel instead of running out of it.
 */
export function fillTooltip(tip: HTMLElement, text: string): void {
  tip.replaceChildren(
    ...text.split('\n').map((line) => {
      const div = document.createElement('div');
      let at = 0;
      for (const m of line.matchAll(FIGURE)) {
        if (m.index > at) div.append(line.slice(at, m.index));
        const num = document.createElement('span');
        num.className = 'num';
        num.textContent = m[0];
        div.append(num);
        at = m.index + m[0].length;
      }
      if (at < line.length) div.append(line.slice(at));
      return div;
    }),
  );
}

/** Puts the tooltip near the pointer (CSS px in the plot) and wholly inside the plot's box. */
export function placeTooltip(tip: HTMLElement, cx: number, cy: number, width: number, height: number): void {
  const w = tip.offsetWidth;
  const h = tip.offsetHeight;
  // Right of the pointer if it fits, else left of it; below it if it fits, else above.
  const left = cx + 14 + w <= width - 4 ? cx + 14 : cx - 14 - w;
  const top = cy + 14 + h <= height - 4 ? cy + 14 : cy - 14 - h;
  tip.style.left = `${Math.max(0, Math.min(left, width - w - 4))}px`;
  tip.style.top = `${Math.max(0, Math.min(top, height - h - 4))}px`;
}
