import type { ElementInfo, StackFrameInfo } from '../../../extension/src/core/timeline/protocol';
import { formatBytes as bytes, count, duration } from '../../../extension/src/shared/format';
import { el } from '../dom';
import { plain as shown } from '../../../extension/src/shared/text';

export type OpenFrame = (file: string, line: number) => void;

const short = (f: StackFrameInfo) => `${f.file.split('/').pop()}:${f.line} ${f.name}`;

/** User frames as buttons (each opens its line); runs of library frames folded into a <details>. */
export function stackList(stack: StackFrameInfo[], open: OpenFrame): HTMLElement {
  const list = el('ol', undefined, 'stack');
  let folded: StackFrameInfo[] = [];
  const flush = () => {
    if (!folded.length) return;
    const d = el('details');
    d.append(el('summary', `${folded.length} library frame${folded.length > 1 ? 's' : ''}`));
    const inner = el('ol', undefined, 'stack');
    for (const f of folded) inner.append(frameItem(f, open));
    d.append(inner);
    const li = el('li');
    li.append(d);
    list.append(li);
    folded = [];
  };
  for (const f of stack) {
    if (f.user) {
      flush();
      list.append(frameItem(f, open));
    } else folded.push(f);
  }
  flush();
  if (!stack.length) list.append(el('li', 'no stack recorded (allocated by the autograd engine, or before recording)', 'muted'));
  return list;
}

function frameItem(f: StackFrameInfo, open: OpenFrame): HTMLElement {
  const li = el('li');
  const b = el('button', short(f), 'frame');
  b.title = shown(`${f.file}:${f.line}`);
  b.dataset.file = f.file;
  b.dataset.line = String(f.line);
  b.addEventListener('click', () => open(f.file, f.line));
  li.append(b);
  return li;
}

/** The pinned block: its figures, its life, and its whole stack. */
export function pinnedPanel(info: ElementInfo, t0: number | null, open: OpenFrame, close: () => void): HTMLElement {
  const box = el('section', undefined, 'pinned');
  box.setAttribute('aria-label', 'Pinned block');
  const head = el('div', undefined, 'pinned-head');
  head.append(el('strong', `${bytes(info.size)} · ${info.key}`));
  const x = el('button', '×', 'icon');
  x.title = 'Unpin (Escape)';
  x.setAttribute('aria-label', 'Unpin');
  x.addEventListener('click', close);
  head.append(x);
  box.append(head);
  const at = (i: number, tu: number | null) => `#${count(i)}${tu !== null && t0 !== null ? ` (${duration(tu - t0)})` : ''}`;
  const facts = el('dl');
  const fact = (k: string, v: string) => facts.append(el('dt', k), el('dd', v));
  fact('kind', info.category);
  if (info.module) fact('module', info.module);
  fact('block', `${bytes(info.rounded)} at 0x${info.address.toString(16)}, stream ${info.stream}`);
  fact('allocated', info.alloc < 0 ? 'before recording began' : at(info.alloc, info.allocTimeUs));
  fact('freed', info.aliveAtEnd ? 'still alive at the end' : at(info.free, info.freeTimeUs));
  if (info.origin === 'unmatched free') fact('note', 'its alloc was not recorded: the stack is where it was freed');
  box.append(facts, el('h3', 'Stack, innermost first'), stackList(info.stack, open));
  return box;
}
