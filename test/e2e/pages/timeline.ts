import type { Frame, Page } from 'playwright-core';

/** The timeline page's frame (VS Code nests it two iframes deep), once its plot exists. */
export async function timelineFrame(page: Page): Promise<Frame> {
  for (let i = 0; i < 300; i++) {
    for (const f of page.frames()) if (await f.$('canvas.plot').catch(() => null)) return f;
    await page.waitForTimeout(200);
  }
  throw new Error('the timeline page did not load');
}
