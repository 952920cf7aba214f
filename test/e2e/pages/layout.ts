import type { Frame, Page } from 'playwright-core';
import { waitFor } from '../waitFor';

/** A box that broke the layout: what it shows, and why it does not fit. */
export interface Misfit {
  text: string;
  why: string;
}

/**
 * Figures (elements matching `selector`) that wrap onto a second line, overflow their own box, or
 * stick out of `container` (default: the page). Runs in the page or a webview's frame.
 */
export async function misfits(where: Page | Frame, selector: string, container?: string): Promise<{ checked: number; bad: Misfit[] }> {
  return where.evaluate(
    ({ selector, container }) => {
      const bad: { text: string; why: string }[] = [];
      const els = [...document.querySelectorAll<HTMLElement>(selector)].filter(
        (e) => e.offsetParent !== null || e.getClientRects().length > 0,
      );
      for (const e of els) {
        const text = (e.textContent ?? '').trim();
        if (!text) continue;
        // A wrapped figure has text on two lines: text rects whose tops differ by most of a line.
        const range = document.createRange();
        range.selectNodeContents(e);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
        const lineH = Math.min(...rects.map((r) => r.height));
        const spread = rects.length ? Math.max(...rects.map((r) => r.top)) - Math.min(...rects.map((r) => r.top)) : 0;
        if (spread >= 0.8 * lineH) bad.push({ text, why: `wraps (text ${Math.round(spread)}px apart, lines ${Math.round(lineH)}px)` });
        if (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).display !== 'inline')
          bad.push({ text, why: `overflows its box (${e.scrollWidth} > ${e.clientWidth})` });
        const box = e.getBoundingClientRect();
        const c = container ? e.closest<HTMLElement>(container) : null;
        const cb = c
          ? c.getBoundingClientRect()
          : { left: 0, top: 0, right: document.documentElement.clientWidth, bottom: document.documentElement.clientHeight };
        if (box.left < cb.left - 1 || box.right > cb.right + 1)
          bad.push({
            text,
            why: `outside its container (${Math.round(box.left)}…${Math.round(box.right)} vs ${Math.round(cb.left)}…${Math.round(cb.right)})`,
          });
      }
      return { checked: els.length, bad };
    },
    { selector, container },
  );
}

/** The frame of the webview whose document has `selector` (VS Code nests each two iframes deep). */
export async function frameWith(page: Page, selector: string, timeoutMs = 60_000): Promise<Frame> {
  const frame = async (): Promise<Frame | undefined> => {
    for (const f of page.frames()) if (await f.$(selector).catch(() => null)) return f;
    return undefined;
  };
  return (await waitFor(`a webview that shows ${selector}`, frame, Boolean, { guardMs: timeoutMs })) as Frame;
}

/** After-line decorations whose text runs past the editor's visible right edge. */
export async function clippedDecorations(page: Page): Promise<{ checked: number; clipped: string[] }> {
  return page.evaluate(() => {
    const ed = document.querySelector('.editor-group-container.active .editor-instance .monaco-editor .overflow-guard');
    if (!ed) return { checked: 0, clipped: [] };
    const right = ed.getBoundingClientRect().right - 14; // the vertical scrollbar covers the last pixels
    const clipped: string[] = [];
    let checked = 0;
    // (No named helper functions in here: the bundler's keepNames would reference a missing __name.)
    const decos = [...ed.querySelectorAll<HTMLElement>('.view-lines .view-line span span')].filter(
      (e) => !['none', 'normal', ''].includes(getComputedStyle(e, '::after').content),
    );
    for (const span of decos) {
      // A line whose code itself runs past the edge is read by scrolling: only the rest must fit.
      const code = [...span.parentElement!.children].filter((e) => !decos.includes(e as HTMLElement));
      if (code.some((e) => e.getBoundingClientRect().right > right)) continue;
      checked++;
      const over = span.getBoundingClientRect().right - right;
      if (over > 0)
        clipped.push(`${getComputedStyle(span, '::after').content.replace(/^"|"$/g, '')} (${Math.round(over)}px past the edge)`);
    }
    return { checked, clipped };
  });
}

/** The hover's natural height (its content unclipped) and the active editor's height, in CSS px. */
export async function hoverHeights(page: Page): Promise<{ hover: number; editor: number }> {
  return page.evaluate(() => {
    const content = [...document.querySelectorAll<HTMLElement>('.monaco-hover .monaco-hover-content')].find((e) => e.offsetParent !== null);
    const editor = document.querySelector('.editor-group-container.active .editor-instance .monaco-editor');
    return {
      hover: content ? Math.max(content.scrollHeight, content.getBoundingClientRect().height) : 0,
      editor: editor?.getBoundingClientRect().height ?? 0,
    };
  });
}

/** The timeline's plot area in CSS px of its canvas. */
export async function plotBox(f: Frame): Promise<{ left: number; top: number; width: number; height: number }> {
  return f.evaluate(() => {
    const { plot, dpr } = (
      window as unknown as { __timeline: { chart: { plot: { x: number; y: number; w: number; h: number }; dpr: number } } }
    ).__timeline.chart;
    return { left: plot.x / dpr, top: plot.y / dpr, width: plot.w / dpr, height: plot.h / dpr };
  });
}
