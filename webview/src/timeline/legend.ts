import type { KeyInfo, LodFrame } from '../../../extension/src/core/timeline/protocol';
import { formatBytes as bytes } from '../../../extension/src/shared/format';
import { el } from '../dom';
import { plain as shown } from '../../../extension/src/shared/text';
import { cssOf } from './colors';

const TOP = 12;

/**
 * What the bands are, at one column (the cursor's, else the peak's): the largest groups with their
 * bytes; a line group's name opens its source line. Category rules are spelled out below.
 */
export function renderLegend(
  root: HTMLElement,
  keys: KeyInfo[],
  frame: LodFrame | undefined,
  column: number,
  colorOf: (key: number) => number,
  open: (file: string, line: number) => void,
  rules: readonly string[] | undefined,
  where: string,
): void {
  root.replaceChildren();
  const sums = new Map<number, number>();
  if (frame && column >= 0 && column < frame.columns) {
    for (let b = frame.bandOff[column]!; b < frame.bandOff[column + 1]!; b++)
      sums.set(frame.bandKey[b]!, (sums.get(frame.bandKey[b]!) ?? 0) + frame.bandBytes[b]!);
  }
  const sorted = [...sums].sort((a, b) => b[1] - a[1]);
  root.append(el('div', `Live ${where}:`, 'legend-title'));
  const list = el('ul');
  for (const [k, v] of sorted.slice(0, TOP)) {
    const info = keys[k]!;
    const li = el('li');
    const sw = el('span', undefined, 'swatch');
    sw.style.background = cssOf(colorOf(k));
    li.append(sw);
    if (info.file !== undefined && info.line !== undefined) {
      const b = el('button', info.label, 'link');
      b.title = shown(`${info.file}:${info.line}`);
      b.addEventListener('click', () => open(info.file!, info.line!));
      li.append(b);
    } else li.append(el('span', info.label));
    li.append(el('span', ` ${bytes(v)}`, 'muted'));
    list.append(li);
  }
  if (sorted.length > TOP) list.append(el('li', `and ${sorted.length - TOP} more`, 'muted'));
  root.append(list);
  if (rules) {
    const d = el('details');
    d.append(el('summary', 'How kinds are inferred'));
    const ul = el('ul');
    for (const r of rules) ul.append(el('li', r));
    d.append(ul);
    root.append(d);
  }
}
