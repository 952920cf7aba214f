import type { FromWebview, ScaleView } from '../../extension/src/core/protocol';
import { formatBytes as bytes } from '../../extension/src/shared/format';
import { el } from './dom';

// The slider moves in quarter steps of log2(scale): ⅛× to 8× the recorded batch.
const MIN = -3;
const MAX = 3;
const times = (x: number) => `${Number(x.toFixed(3))}×`;

/**
 * The summary page's batch section: a slider for the batch as a multiple of the recorded one, the
 * run predicted there (requested and reserved peaks, OOM or not) drawn against the limit (the device
 * line), the largest batch that fits on request, and what the prediction assumed.
 */
export function renderScale(v: ScaleView, post: (m: FromWebview) => void, held?: number): HTMLElement {
  const sec = el('section', undefined, 'scale');
  sec.append(el('h2', 'What if: another batch'));
  if (v.error) {
    sec.append(el('p', `Not predicted here: ${v.error}.`, 'note'));
    return sec;
  }
  const at = v.scale ?? 2;
  const slider = el('input');
  slider.type = 'range';
  slider.name = 'batch-scale';
  slider.min = String(MIN);
  slider.max = String(MAX);
  slider.step = '0.25';
  slider.value = String(held ?? Math.log2(at));
  slider.setAttribute('aria-label', 'batch as a multiple of the recorded one');
  const label = el('span', `${times(2 ** Number(slider.value))} the batch`, 'scale-label');
  slider.addEventListener('input', () => (label.textContent = `${times(2 ** Number(slider.value))} the batch`));
  slider.addEventListener('change', () => post({ type: 'scale', scale: 2 ** Number(slider.value) }));
  const row = el('div', undefined, 'scale-row');
  row.append(slider, label);
  sec.append(row);
  if (v.scale === null) {
    sec.append(el('p', 'Predicting…', 'note pending'));
    return sec;
  }
  const fig = el('p');
  fig.dataset.scale = String(v.scale);
  const req = el('span', bytes(v.requestedPeak));
  req.dataset.requested = String(v.requestedPeak);
  const res = el('span', v.reservedPeak === null ? 'not predicted' : bytes(v.reservedPeak));
  if (v.reservedPeak !== null) res.dataset.reserved = String(v.reservedPeak);
  const verdict =
    v.limitBytes === null
      ? ' (no limit known: the run had no OOM)'
      : v.ooms
        ? ` before it runs out of memory under ${bytes(v.limitBytes)}`
        : `: fits under ${bytes(v.limitBytes)}`;
  fig.append(
    `At ${times(v.scale)} the batch: requested peak `,
    req,
    ', reserved peak ',
    res,
    `${verdict}. Recorded: ${bytes(v.recorded.requestedPeak)} requested, ${bytes(v.recorded.reservedPeak)} reserved. Confidence ${v.confidence}.`,
  );
  sec.append(fig, bar(v));
  if (v.limitBytes !== null) {
    const go = el('button', 'Largest batch that fits');
    go.type = 'button';
    go.addEventListener('click', () => post({ type: 'largestScale' }));
    sec.append(go);
    // From a run that stopped at its OOM, the rest of its iteration is unknown: the answer can only be too high.
    const bound = v.recorded.ooms ? ' (at most: the run stopped at its OOM, and what came after is not in the trace)' : '';
    if (v.largest !== undefined)
      sec.append(
        el(
          'p',
          v.largest
            ? `Largest that fits under the limit less 5 %: ${times(v.largest)} the recorded batch${bound}.`
            : 'No batch fits under the limit less 5 %, not a sixteenth of the recorded one either.',
          'largest',
        ),
      );
  }
  const list = el('ul', undefined, 'assumptions');
  for (const a of v.assumptions) list.append(el('li', a));
  const more = el('details');
  more.append(el('summary', 'What the prediction assumed'), list);
  sec.append(more);
  return sec;
}

/** The predicted reserved peak as a bar, the limit as a line across it (both on one scale). */
function bar(v: ScaleView): HTMLElement {
  // Out of memory: the reserved peak stops at the failing request; the demand is the requested peak.
  const peak = v.ooms ? Math.max(v.requestedPeak, v.reservedPeak ?? 0) : (v.reservedPeak ?? v.requestedPeak);
  const top = Math.max(peak, v.limitBytes ?? 0, v.recorded.reservedPeak) || 1;
  const box = el('div', undefined, 'scale-bar');
  const fill = el('div', undefined, v.ooms ? 'fill over' : 'fill');
  fill.style.width = `${(peak / top) * 100}%`;
  const was = el('div', undefined, 'recorded');
  was.style.left = `${(v.recorded.reservedPeak / top) * 100}%`;
  was.title = `recorded reserved peak ${bytes(v.recorded.reservedPeak)}`;
  box.append(fill, was);
  if (v.limitBytes !== null) {
    const line = el('div', undefined, 'limit');
    line.style.left = `${(v.limitBytes / top) * 100}%`;
    line.title = `limit ${bytes(v.limitBytes)}`;
    box.append(line);
  }
  return box;
}

/** Where the user left the slider, kept across updates of the section. */
export function heldAt(sec: Element | null): number | undefined {
  const s = sec?.querySelector<HTMLInputElement>('input[name="batch-scale"]');
  return s ? Number(s.value) : undefined;
}
