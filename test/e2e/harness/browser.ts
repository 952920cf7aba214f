import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/** Flags that keep Debian's chromium quiet and offline (no background fetches, no sandbox as root). */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface BrowserSession {
  browser: Browser;
  context: BrowserContext;
  page: Page;
}

export async function launchBrowser(executablePath: string, width = 1440, height = 900): Promise<BrowserSession> {
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    // Playwright gives every launch a fresh, throw-away profile.
    args: FLAGS,
  });
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  return { browser, context, page };
}
