import type { FlameNode } from '../../../extension/src/core/flame/protocol';
import { formatBytes as bytes, count } from '../../../extension/src/shared/format';
import { el } from '../dom';
import { plain as shown } from '../../../extension/src/shared/text';
import type { FlameMatches } from './search';

// The page's words about frames: names read out, tooltips, the breadcrumb, the details, the search's count.

const KIND: Record<FlameNode['kind'], string> = {
  user: 'your code',
  library: 'library code',
  bucket: 'no source line',
  tensor: 'a named parameter tensor',
};

export function share(part: number, total: number): string {
  return total > 0 ? `${((100 * part) / total).toFixed(1)}%` : '—';
}

/** `train_leaky.py:38` (the file's last part): the place, short. */
export function where(n: FlameNode): string {
  if (!n.file) return '';
  return `${n.file.slice(Math.max(n.file.lastIndexOf('/'), n.file.lastIndexOf('\\')) + 1)}:${n.line}`;
}

/** What a screen reader says of a frame: its name, bytes, share of the live memory, kind and place. */
export function accessibleName(n: FlameNode, total: number): string {
  const at = where(n);
  return shown(`${n.label}, ${bytes(n.bytes)}, ${share(n.bytes, total)} of live memory, ${KIND[n.kind]}${at ? `, ${at}` : ''}`);
}

/** The frame's tooltip: every figure, and the plumbing folded into it. */
export function frameTitle(n: FlameNode, total: number): string {
  const lines = [n.label];
  if (n.file) lines.push(`${n.file}:${n.line}`);
  lines.push(`${bytes(n.bytes)} (${share(n.bytes, total)}) in ${count(n.blocks)} blocks; self ${bytes(n.selfBytes)}`);
  if (n.folded.length) lines.push(`via ${n.folded.join(', ')}`);
  if (n.selfVia.length) lines.push(`self bytes via ${n.selfVia.join(', ')}`);
  if (n.otherCount) lines.push(`${count(n.otherCount)} smaller frames not drawn: ${bytes(n.otherBytes)}`);
  return lines.map(shown).join('\n');
}

/** "2 frames match: 136 MiB (46.5%)"; '' without a query. */
export function foundText(query: string, m: FlameMatches, total: number): string {
  if (!query.trim()) return '';
  if (!m.nodes.length) return 'no frames match';
  return `${count(m.nodes.length)} ${m.nodes.length === 1 ? 'frame matches' : 'frames match'}: ${bytes(m.bytes)} (${share(m.bytes, total)})`;
}

/** The zoom path as a breadcrumb: each caller a button that zooms out to it, the zoomed frame last. */
export function fillCrumbs(box: HTMLElement, path: readonly FlameNode[], zoom: (n: FlameNode) => void): void {
  const items = path.map((n, i) => {
    if (i === path.length - 1) {
      const s = el('span', n.label, 'crumb current');
      s.setAttribute('aria-current', 'location');
      return s;
    }
    const b = el('button', n.label, 'crumb');
    b.type = 'button';
    b.title = shown(`Zoom out to ${n.label}`);
    b.addEventListener('click', () => zoom(n));
    return b;
  });
  box.replaceChildren(...items.flatMap((e, i) => (i ? [el('span', '›', 'sep'), e] : [e])));
}

/** The selected frame's figures under the graph; "Go to source" only for a frame with a file. */
export function fillDetails(box: HTMLElement, goto: HTMLButtonElement, n: FlameNode | undefined, total: number): void {
  goto.disabled = !n?.file;
  if (!n) return box.replaceChildren();
  const [, ...lines] = frameTitle(n, total).split('\n');
  box.replaceChildren(el('strong', n.label), ...lines.map((l) => el('div', l)));
}
