import type { FlameApp } from './app';
import { frameTitle } from './render';
import { neighbour } from './search';

/**
 * Pointer and keyboard. A click zooms into a frame, a double click opens its line. On the graph
 * (focusable): arrows walk the drawn frames (Up the parent, Down the largest child, Left/Right the
 * siblings), Enter opens, Space zooms, Escape zooms out, '/' goes to the search box. In the search
 * box: Enter the next match (Shift+Enter the previous), Escape back to the graph.
 */
export function bindFlameInput(app: FlameApp): void {
  const { graph, canvas, tooltip, search, goto } = app.dom;
  const frameAt = (e: MouseEvent) => {
    const r = canvas.getBoundingClientRect();
    return app.chart.hit(e.clientX - r.left, e.clientY - r.top)?.node;
  };

  canvas.addEventListener('click', (e) => {
    const n = frameAt(e);
    if (!n) return;
    graph.focus({ preventScroll: true });
    app.zoom(n);
  });
  canvas.addEventListener('dblclick', (e) => {
    const n = frameAt(e);
    if (n) app.open(n);
  });
  canvas.addEventListener('mousemove', (e) => {
    const n = frameAt(e);
    tooltip.hidden = !n || !app.root;
    if (!n || !app.root) return;
    tooltip.textContent = frameTitle(n, app.root.bytes);
    // Beside the pointer, kept inside the graph.
    const g = graph.getBoundingClientRect();
    const x = e.clientX - g.left + 12;
    const y = e.clientY - g.top + graph.scrollTop + 14;
    tooltip.style.left = `${Math.max(0, Math.min(x, g.width - tooltip.offsetWidth - 4))}px`;
    tooltip.style.top = `${y + tooltip.offsetHeight > graph.scrollTop + g.height ? y - tooltip.offsetHeight - 20 : y}px`;
  });
  canvas.addEventListener('mouseleave', () => (tooltip.hidden = true));
  goto.addEventListener('click', () => app.open());

  graph.addEventListener('keydown', (e) => {
    const sel = app.selected;
    if (!sel) return;
    let handled = true;
    switch (e.key) {
      case 'ArrowUp':
      case 'ArrowDown':
      case 'ArrowLeft':
      case 'ArrowRight': {
        const next = neighbour(e.key, sel, app.parents, app.rects);
        if (next) app.select(next);
        break;
      }
      case 'Enter':
        app.open();
        break;
      case ' ':
        app.zoom(sel);
        break;
      case 'Escape':
        app.zoomOut();
        break;
      case '/':
        search.focus();
        search.select();
        break;
      case 'Home':
        if (app.root) app.select(app.root);
        break;
      default:
        handled = false;
    }
    if (handled) e.preventDefault();
  });

  search.addEventListener('input', () => app.search(search.value));
  search.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      app.nextMatch(e.shiftKey ? -1 : 1);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      search.value = '';
      app.search('');
      graph.focus();
    }
  });

  // '/' from anywhere on the page (except while typing) goes to the search box.
  document.addEventListener('keydown', (e) => {
    if (e.key !== '/' || e.target === search || e.defaultPrevented) return;
    e.preventDefault();
    search.focus();
    search.select();
  });

  new ResizeObserver(() => app.render()).observe(graph);
}
