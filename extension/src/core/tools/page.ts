import { plain } from '../../shared/text';
import { ToolInputError } from './types';

/** An answer's default size: about 500 tokens. Longer answers are paged. */
export const PAGE_CHARS = 2000;
/** Pages an answer may have at most (a bound on what a crafted snapshot can make us write). */
const MAX_PAGES = 50;

/**
 * The answer's page `page` (1-based): whole lines, about PAGE_CHARS each, every line plain text
 * (controls and bidi marks escaped), with a last line saying how to ask for the next page.
 */
export function paged(lines: readonly string[], page = 1): string {
  const pages: string[][] = [[]];
  let size = 0;
  for (const raw of lines) {
    const line = plain(raw).slice(0, PAGE_CHARS);
    if (size + line.length + 1 > PAGE_CHARS && pages.at(-1)!.length) {
      if (pages.length === MAX_PAGES) break;
      pages.push([]);
      size = 0;
    }
    pages.at(-1)!.push(line);
    size += line.length + 1;
  }
  if (!Number.isInteger(page) || page < 1 || page > pages.length)
    throw new ToolInputError(`page ${page} does not exist: the answer has ${pages.length} page${pages.length > 1 ? 's' : ''}`);
  const body = pages[page - 1]!.join('\n');
  return pages.length > 1
    ? `${body}\n(page ${page} of ${pages.length}${page < pages.length ? `: ask again with page ${page + 1} for more` : ''})`
    : body;
}
