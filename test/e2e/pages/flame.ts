import type { Frame, Page } from 'playwright-core';

/** A frame as the flame page laid it out: its label, line, row and extent in CSS pixels of the canvas. */
export interface FlameBox {
  id: number;
  label: string;
  file: string;
  line: number;
  bytes: number;
  depth: number;
  x: number;
  w: number;
}

/** The flame graph page's frame (VS Code nests it two iframes deep), once it holds a tree. */
export async function flameFrame(page: Page): Promise<Frame> {
  for (let i = 0; i < 300; i++) {
    for (const f of page.frames()) {
      const ready = await f
        .evaluate(() => (window as unknown as { __flame?: { init?: unknown } }).__flame?.init !== undefined)
        .catch(() => false);
      if (ready) return f;
    }
    await page.waitForTimeout(200);
  }
  throw new Error('the flame graph page did not load a tree');
}

/** What the page shows: its instant, total, zoom path, and the frames drawn. */
export async function flameState(f: Frame): Promise<{ instant: string; total: number; path: string[]; boxes: FlameBox[] }> {
  return f.evaluate(() => {
    interface N {
      id: number;
      label: string;
      file: string;
      line: number;
      bytes: number;
    }
    const app = (
      window as unknown as {
        __flame: {
          init: { instantLabel: string; root: N };
          path: N[];
          rects: Map<number, { node: N; depth: number; x: number; w: number }>;
        };
      }
    ).__flame;
    const boxes = [...app.rects.values()].map((r) => ({
      id: r.node.id,
      label: r.node.label,
      file: r.node.file,
      line: r.node.line,
      bytes: r.node.bytes,
      depth: r.depth,
      x: r.x,
      w: r.w,
    }));
    return { instant: app.init.instantLabel, total: app.init.root.bytes, path: app.path.map((n) => n.label), boxes };
  });
}

/** Clicks the middle of a drawn frame (`dbl`: a double click). */
export async function clickFrame(f: Frame, box: FlameBox, dbl = false): Promise<void> {
  const position = { x: box.x + box.w / 2, y: box.depth * 20 + 10 };
  const canvas = f.locator('canvas.frames');
  if (dbl) await canvas.dblclick({ position });
  else await canvas.click({ position });
}
