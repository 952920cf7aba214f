import { mainKind } from '../kinds/kindLabels';
import { formatBytes } from '../../shared/format';
import type { LineAnnotation } from './annotations';
import { signedBytes } from './diff';

/** A message catalogue lookup: the editor passes vscode.l10n.t; elsewhere the English text. */
export type Translate = (message: string, ...args: (string | number)[]) => string;

/** The English text with {0}, {1}… filled in, as vscode.l10n.t does without a bundle. */
export const english: Translate = (message, ...args) => message.replace(/\{(\d+)\}/g, (m, i: string) => String(args[Number(i)] ?? m));

/** What the wording of a line reads: core's figure and the bytes it names. */
export type Worded = Pick<LineAnnotation, 'figure' | 'selfBytes' | 'inclusiveBytes' | 'kinds'>;

/**
 * A line's whole text, at the instant `label` names: "▲ 1.24 GiB at peak (⊂ 3.10 GiB)",
 * "⊂ 3.10 GiB at peak in calls", or in compare mode "+2.00 MiB vs base.pickle".
 */
export function lineText(l: Worded, label: string, t: Translate = english): string {
  const f = l.figure;
  if (f.kind === 'change') return t('{0} vs {1}', signedBytes(f.deltaBytes, formatBytes), f.baseline);
  if (f.kind === 'calls') return t('⊂ {0} {1} in calls', formatBytes(l.inclusiveBytes), label);
  return `▲ ${formatBytes(l.selfBytes)} ${label}${f.inclusive ? ` (⊂ ${formatBytes(l.inclusiveBytes)})` : ''}`;
}

/**
 * The after-line text, short enough to fit beside code in an editor half the screen wide: the
 * figure, the instant only when it is not the peak (the lens, hover and tree say so), "stale"
 * without the reason (the hover gives it). Compare mode's signed texts are kept whole.
 */
export function shortText(l: Worded & { stale: boolean }, instantLabel: string, t: Translate = english): string {
  const f = l.figure;
  const stale = l.stale ? ` · ${t('stale')}` : '';
  if (f.kind === 'change') return `${lineText(l, instantLabel, t)}${stale}`;
  const figure =
    f.kind === 'self'
      ? `▲${formatBytes(l.selfBytes)}${f.inclusive ? ` ⊂${formatBytes(l.inclusiveBytes)}` : ''}`
      : `⊂${formatBytes(l.inclusiveBytes)}`;
  // A line whose memory is mostly leaked says so beside the figure (the lens and hover name every
  // kind; a longer word would not fit beside a long line in half an editor).
  const kind = f.kind === 'self' && mainKind(l.kinds)?.kind === 'leaked' ? ` · ${t('leaked')}` : '';
  return `${figure}${kind}${instantLabel && instantLabel !== t('at peak') ? ` ${instantLabel}` : ''}${stale}`;
}
