import type { KeyingName } from '../../../extension/src/core/timeline/protocol';
import { el } from '../dom';
import { TimelineApp } from './app';
import { connectHost } from './host';
import { showFlame } from './flameLink';
import { bindInput } from './input';
import { goToPeak } from './navigate';
import './timeline.css';

/** Builds the page (toolbar, plot, side panel, minimap, segments tab) and connects it to the host. */
function button(label: string, title: string, onClick: () => void): HTMLButtonElement {
  const b = el('button', label);
  b.type = 'button';
  b.title = title;
  b.addEventListener('click', onClick);
  return b;
}

function select<T extends string>(label: string, options: [T, string][], value: T, onChange: (v: T) => void): HTMLLabelElement {
  const s = el('select');
  for (const [v, text] of options) {
    const o = el('option', text);
    o.value = v;
    s.append(o);
  }
  s.value = value;
  s.addEventListener('change', () => onChange(s.value as T));
  const l = el('label', `${label} `);
  l.append(s);
  return l;
}

const host = connectHost();
const title = el('h1', 'Headroom: memory timeline');
const canvas = el('canvas', undefined, 'plot');
canvas.setAttribute('role', 'application');
canvas.setAttribute('aria-roledescription', 'memory timeline');
canvas.setAttribute(
  'aria-label',
  'Memory over time. Arrows move the cursor, Up and Down select a block, Enter shows the code at that moment, plus and minus zoom, Page Up and Page Down pan, P goes to the peak, F shows the flame graph of the instant, 0 resets.',
);
const tooltip = el('div', undefined, 'tooltip');
tooltip.hidden = true;
tooltip.setAttribute('role', 'tooltip');
const minimap = el('canvas', undefined, 'minimap');
minimap.setAttribute('aria-label', 'Overview of the whole trace: drag to choose the window');
const side = el('aside', undefined, 'side');
const legend = el('div', undefined, 'legend');
const status = el('div', undefined, 'sr-status');
status.setAttribute('aria-live', 'polite');
const message = el('p', '', 'message');
message.hidden = true;
const plotWrap = el('div', undefined, 'plot-wrap');
plotWrap.append(canvas, tooltip);
const timelineTab = el('section', undefined, 'tab timeline-tab');
const main = el('div', undefined, 'timeline-main');
const columns = el('div', undefined, 'timeline-columns');
const right = el('div', undefined, 'right');
right.append(side, legend);
main.append(plotWrap, minimap);
columns.append(main, right);
timelineTab.append(columns);
const segmentsTab = el('section', undefined, 'tab segments-tab');

const app = new TimelineApp(host, { title, canvas, minimap, tooltip, side, legend, status, timelineTab, segmentsTab, message });

const tabs = el('div', undefined, 'tabs');
tabs.setAttribute('role', 'tablist');
const tabButtons = (['timeline', 'segments'] as const).map((t) => {
  const b = button(
    t === 'timeline' ? 'Timeline' : 'Segments',
    t === 'timeline' ? 'Allocations over time' : 'The allocator’s segments at the instant: holes, free space per pool',
    () => showTab(t),
  );
  b.setAttribute('role', 'tab');
  return b;
});
tabs.append(...tabButtons);

function showTab(t: 'timeline' | 'segments'): void {
  timelineTab.hidden = t !== 'timeline';
  segmentsTab.hidden = t !== 'segments';
  tabButtons.forEach((b, i) => b.setAttribute('aria-selected', String((i === 0) === (t === 'timeline'))));
  app.setTab(t);
}

const toolbar = el('div', undefined, 'toolbar');
toolbar.append(
  tabs,
  select<KeyingName>(
    'Colour by',
    [
      ['category', 'kind'],
      ['line', 'source line'],
      ['module', 'module'],
    ],
    app.state.keying,
    (v) => app.setKeying(v),
  ),
  select<'index' | 'time'>(
    'x',
    [
      ['index', 'events'],
      ['time', 'time'],
    ],
    app.state.x,
    (v) => app.setXAxis(v),
  ),
  button('Fit', 'Show the whole trace (0)', () => app.fit()),
  button('Peak', 'Centre the peak (P)', () => goToPeak(app)),
  button('Device…', 'Show another device or rank', () => app.post({ type: 'selectDevice' })),
  button('Flame graph', 'The memory live at the instant, by call path (F)', () => showFlame(app)),
);

document.body.append(title, toolbar, message, timelineTab, segmentsTab, status);
bindInput(app, (text) => (status.textContent = text));
showTab(app.state.tab);

// Theme changes arrive as a class change on <body>: re-read the colours and redraw.
new MutationObserver(() => app.applyTheme()).observe(document.body, { attributes: true, attributeFilter: ['class'] });

new ResizeObserver(() => {
  app.invalidate();
  app.request();
}).observe(plotWrap);

host.onMessage((m) => app.onMessage(m));
app.post({ type: 'ready' });

// For tests and tools: the page's app (no data beyond what the page already shows).
(window as unknown as { __timeline: TimelineApp }).__timeline = app;
