import type { Locator, Page } from 'playwright-core';

/** The status bar: items by their accessible text or id. */
export class StatusBar {
  constructor(private readonly page: Page) {}

  item(id: string): Locator {
    return this.page.locator(`.statusbar-item[id="${id}"]`);
  }

  async texts(): Promise<string[]> {
    return (await this.page.locator('.statusbar-item').allInnerTexts()).map((s) => s.trim()).filter(Boolean);
  }
}
