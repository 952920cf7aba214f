import * as vscode from 'vscode';
import { mainKind } from '../../core/kinds/kindLabels';
import type { LineAnnotation } from '../../core/source/annotations';
import { signedBytes } from '../../core/source/diff';
import { formatBytes } from '../../shared/format';

/** What the wording of a line reads: core's figure and the bytes it names. */
type Worded = Pick<LineAnnotation, 'figure' | 'selfBytes' | 'inclusiveBytes' | 'kinds'>;

/**
 * A line's whole text, at the instant `label` names: "▲ 1.24 GiB at peak (⊂ 3.10 GiB)",
 * "⊂ 3.10 GiB at peak in calls", or in compare mode "+2.00 MiB vs base.pickle".
 */
export function lineText(l: Worded, label: string): string {
  const f = l.figure;
  if (f.kind === 'change') return vscode.l10n.t('{0} vs {1}', signedBytes(f.deltaBytes, formatBytes), f.baseline);
  if (f.kind === 'calls') return vscode.l10n.t('⊂ {0} {1} in calls', formatBytes(l.inclusiveBytes), label);
  return `▲ ${formatBytes(l.selfBytes)} ${label}${f.inclusive ? ` (⊂ ${formatBytes(l.inclusiveBytes)})` : ''}`;
}

/**
 * The after-line text, short enough to fit beside code in an editor half the screen wide: the
 * figure, the instant only when it is not the peak (the lens, hover and tree say so), "stale"
 * without the reason (the hover gives it). Compare mode's signed texts are kept whole.
 */
export function shortText(l: Worded & { stale: boolean }, instantLabel: string): string {
  const f = l.figure;
  const stale = l.stale ? ` · ${vscode.l10n.t('stale')}` : '';
  if (f.kind === 'change') return `${lineText(l, instantLabel)}${stale}`;
  const figure =
    f.kind === 'self'
      ? `▲${formatBytes(l.selfBytes)}${f.inclusive ? ` ⊂${formatBytes(l.inclusiveBytes)}` : ''}`
      : `⊂${formatBytes(l.inclusiveBytes)}`;
  // A line whose memory is mostly leaked says so beside the figure (the lens and hover name every
  // kind; a longer word would not fit beside a long line in half an editor).
  const kind = f.kind === 'self' && mainKind(l.kinds)?.kind === 'leaked' ? ` · ${vscode.l10n.t('leaked')}` : '';
  return `${figure}${kind}${instantLabel && instantLabel !== vscode.l10n.t('at peak') ? ` ${instantLabel}` : ''}${stale}`;
}
