/**
 * Text from snapshots, run folders, logs and OOM messages is data: it is shown, never obeyed.
 * These helpers make such text inert for markdown and notifications (plain text: shared/text.ts).
 */
import { plain } from '../shared/text';

/**
 * Markdown that renders as exactly this text (after {@link plain}): every ASCII punctuation mark is
 * backslash-escaped (CommonMark's guarantee), so no link, image, autolink (`https\:`, `www\.`,
 * `a\@b`), emphasis, HTML tag or entity can form. `$` becomes `&#36;` so that `$(icon)` is text
 * even where theme icons are on (VS Code matches icons in the rendered text, after unescaping).
 */
export function markdownText(s: string): string {
  return plain(s).replace(/[!-\/:-@\[-`{-~]/g, (c) => (c === '$' ? '&#36;' : `\\${c}`));
}

/**
 * For VS Code notifications and other plain-text surfaces that still turn `[label](target)` into a
 * link: control characters escaped, and a zero-width space between `]` and `(` so no link forms.
 */
export function messageText(s: string): string {
  return plain(s).replace(/\](\s*)\(/g, ']\u200b$1(');
}
