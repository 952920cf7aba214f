import { el } from '../dom';
import { FlameApp } from './app';
import { connectFlameHost } from './host';
import { bindFlameInput } from './input';
import './flame.css';

/** Builds the page (title, search, breadcrumb, graph, details) and connects it to the host. */
const host = connectFlameHost();
const title = el('h1', 'Memory flame graph');
const instant = el('span', '', 'instant');
const heading = el('div', undefined, 'heading');
heading.append(title, instant);

const search = el('input', undefined, 'search');
search.type = 'search';
search.placeholder = 'Search frames (/)';
search.setAttribute('aria-label', 'Search frames by name or file; Enter goes to the next match');
const found = el('span', '', 'found');
found.setAttribute('aria-live', 'polite');
const goto = el('button', 'Go to source');
goto.type = 'button';
goto.title = 'Open the selected frame’s line (Enter, or double-click a frame)';
const out = el('button', 'Zoom out');
out.type = 'button';
out.title = 'Zoom out one level (Escape)';
const toolbar = el('div', undefined, 'toolbar');
toolbar.append(search, found, goto, out);

const crumbs = el('nav', undefined, 'crumbs');
crumbs.setAttribute('aria-label', 'Zoomed frame and its callers');
const canvas = el('canvas', undefined, 'frames');
const tooltip = el('div', undefined, 'tooltip');
tooltip.hidden = true;
tooltip.setAttribute('role', 'tooltip');
const graph = el('div', undefined, 'graph');
graph.tabIndex = 0;
graph.setAttribute('role', 'application');
graph.setAttribute('aria-roledescription', 'flame graph');
graph.setAttribute(
  'aria-label',
  'Memory live at the instant, by call path. Arrows move between frames (Up the caller, Down the largest callee, Left and Right the neighbours), Enter opens the source, Space zooms in, Escape zooms out, slash searches. Each frame is read out as you reach it.',
);
graph.append(canvas, tooltip);
const details = el('div', undefined, 'details');
const status = el('div', undefined, 'sr-status');
status.setAttribute('aria-live', 'polite');
const message = el('p', '', 'message');
message.hidden = true;
const key = el('div', undefined, 'key');
for (const [kind, text] of [
  ['user', 'your code'],
  ['library', 'library code'],
  ['tensor', 'a named parameter tensor'],
  ['bucket', 'no source line'],
] as const) {
  const k = el('span');
  k.append(el('span', undefined, `swatch ${kind}`), el('span', text));
  key.append(k);
}

document.body.append(heading, toolbar, message, crumbs, graph, details, key, status);

const app = new FlameApp(host, { title, instant, crumbs, graph, canvas, tooltip, details, goto, search, found, status, message });
out.addEventListener('click', () => app.zoomOut());
bindFlameInput(app);
// Theme changes arrive as a class change on <body>: re-read the colours and redraw.
new MutationObserver(() => {
  app.chart.readTheme();
  app.render();
}).observe(document.body, { attributes: true, attributeFilter: ['class'] });
host.onMessage((m) => app.onMessage(m));
host.post({ type: 'ready' });

// For tests and tools: the page's app (no data beyond what the page already shows).
(window as unknown as { __flame: FlameApp }).__flame = app;
