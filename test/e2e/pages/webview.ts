import type { FrameLocator, Page } from 'playwright-core';

/**
 * A webview's content: VS Code nests it two iframes deep (the host frame, then #active-frame).
 * `title` picks the panel by its tab title when several webviews are open.
 */
export function webviewContent(page: Page, index = 0): FrameLocator {
  return page.frameLocator('iframe.webview.ready').nth(index).frameLocator('#active-frame');
}

export async function activeTabTitle(page: Page): Promise<string> {
  return (await page.locator('.tab.active .label-name').first().innerText()).trim();
}
