import type { Page } from 'playwright-core';

/** The Problems panel and the quick fix menu. */
export class Problems {
  constructor(private readonly page: Page) {}

  async entries(): Promise<string[]> {
    await this.page.keyboard.press('Control+Shift+M');
    const rows = this.page.locator('.markers-panel .monaco-list-row');
    await rows.first().waitFor({ timeout: 60_000 });
    return (await rows.allInnerTexts()).map((s) => s.replace(/\s+/g, ' ').trim());
  }

  /** Opens the quick fix menu at the cursor (Ctrl+.) and returns its entries. */
  async quickFixes(): Promise<string[]> {
    await this.page.keyboard.press('Control+.');
    const items = this.page.locator('.action-widget .action-list-item, .action-widget .monaco-list-row');
    await items.first().waitFor({ timeout: 30_000 });
    return (await items.allInnerTexts()).map((s) => s.trim()).filter(Boolean);
  }

  async applyQuickFix(label: string): Promise<void> {
    await this.page.locator('.action-widget .monaco-list-row', { hasText: label }).first().click();
  }
}
