import { plain } from '../../extension/src/shared/text';

/** The one way the pages make an element: text goes in as text, with controls shown as escapes. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = plain(text);
  if (cls) e.className = cls;
  return e;
}
