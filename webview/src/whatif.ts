import type { FromWebview, WhatifView } from '../../extension/src/core/protocol';
import { formatBytes as bytes } from '../../extension/src/shared/format';
import { el } from './dom';

const change = (x: number, base: number) =>
  base > 0 ? `${x >= base ? '+' : '−'}${Math.abs(Math.round(((x - base) / base) * 100))} %` : '';

/** `k:v,k2:v2` as the remedy button's settings, where every value is a plain word or number. */
function asSettings(conf: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const part of conf
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([A-Za-z_]+)\s*[:=]\s*([\w.]+)$/.exec(part);
    if (!m) return undefined;
    out[m[1]!] = m[2]!;
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * The what-if section of the summary page: each setting's predicted reserved peak beside the
 * recorded one, what it leaves cached at that peak, and the OOMs it would hit or avoid; a form to
 * predict any other PYTORCH_CUDA_ALLOC_CONF (the host reads it; nothing is run) under a cap.
 */
export function renderWhatif(v: WhatifView, post: (m: FromWebview) => void, typed?: { conf: string; cap: string }): HTMLElement {
  const sec = el('section', undefined, 'whatif');
  sec.append(el('h2', 'What if: other allocator settings'));
  sec.append(
    el(
      'p',
      `Recorded: reserved peak ${bytes(v.recorded.reservedPeak)}, allocated peak ${bytes(v.recorded.allocatedPeak)}${v.recorded.allocatedExact ? '' : ' (estimate)'}${v.recorded.ooms ? `, ${v.recorded.ooms} OOM(s)` : ''}. Limit: ${v.limit}.`,
    ),
  );
  const table = el('table');
  const head = el('tr');
  head.append(
    el('th', 'setting'),
    el('th', 'reserved peak', 'bytes'),
    el('th', 'change', 'bytes'),
    el('th', 'cached at that peak', 'bytes'),
    el('th', 'OOM'),
  );
  table.append(head);
  for (const r of v.rows) {
    const tr = el('tr');
    tr.dataset.whatif = r.allocConf;
    if ('error' in r) {
      const why = el('td', `not predicted: ${r.error}`);
      why.colSpan = 4;
      tr.append(el('td', r.allocConf, 'setting'), why);
      table.append(tr);
      continue;
    }
    const oom = r.ooms.length
      ? `OOM at event #${r.ooms[0]}${r.ooms.length > 1 ? ` and ${r.ooms.length - 1} more` : ''}`
      : r.avoided.length
        ? 'none: the recorded OOM does not happen'
        : 'none';
    const peak = el('td', bytes(r.reservedPeak), 'bytes');
    peak.dataset.bytes = String(r.reservedPeak);
    // The setting, and under it a button to run the workload again with it.
    const name = el('td', r.allocConf, 'setting');
    const settings = asSettings(r.allocConf);
    if (settings) {
      const b = el('button', 'Re-run with this setting');
      b.type = 'button';
      b.addEventListener('click', () => post({ type: 'remedy', allocConf: settings }));
      name.append(b);
    }
    tr.append(
      name,
      peak,
      el('td', change(r.reservedPeak, v.recorded.reservedPeak), 'bytes'),
      el('td', bytes(r.cachedAtPeak), 'bytes'),
      el('td', oom),
    );
    table.append(tr);
  }
  sec.append(table);
  if (v.pending.length) sec.append(el('p', `Predicting ${v.pending.join(', ')}…`, 'note pending'));
  const form = el('form');
  const conf = el('input');
  conf.name = 'alloc-conf';
  conf.placeholder = 'PYTORCH_CUDA_ALLOC_CONF, e.g. expandable_segments:True';
  conf.size = 40;
  conf.maxLength = 400;
  conf.value = typed?.conf ?? '';
  const cap = el('input');
  cap.name = 'cap-gib';
  cap.type = 'number';
  cap.min = '0.01';
  cap.step = 'any';
  cap.placeholder = 'cap GiB (optional)';
  cap.value = typed?.cap ?? '';
  const go = el('button', 'Predict');
  go.type = 'submit';
  form.append(conf, cap, go);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const capGib = Number(cap.value);
    if (!conf.value.trim()) return;
    post({ type: 'whatif', allocConf: conf.value.trim(), ...(cap.value && capGib > 0 ? { capGib } : {}) });
    conf.value = '';
  });
  sec.append(form, el('p', v.note, 'note'));
  return sec;
}

/** What the user has typed into the form, kept across updates of the section. */
export function typedIn(sec: Element | null): { conf: string; cap: string } | undefined {
  const conf = sec?.querySelector<HTMLInputElement>('input[name="alloc-conf"]');
  const cap = sec?.querySelector<HTMLInputElement>('input[name="cap-gib"]');
  return conf && cap ? { conf: conf.value, cap: cap.value } : undefined;
}
