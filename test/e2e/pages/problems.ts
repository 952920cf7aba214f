import type { Page } from 'playwright-core';

/** The Problems panel and the quick fix menu. */
export class Problems {
  constructor(private readonly page: Page) {}

  async entries(): Promise<string[]> {
    // The shortcut toggles the panel (pressed with the Problems view focused, it closes it): only when it is not showing.
    if (!(await this.page.locator('.markers-panel').isVisible())) await this.page.keyboard.press('Control+Shift+M');
    const rows = this.page.locator('.markers-panel .monaco-list-row');
    await rows.first().waitFor({ timeout: 60_000 });
    return (await rows.allInnerTexts()).map((s) => s.replace(/\s+/g, ' ').trim());
  }

  /**
   * Opens the quick fix menu at the cursor (Ctrl+.) and returns its entries. A loaded machine can
   * drop the key or answer before the code actions are in, so it tries up to four times, putting
   * the cursor back with `place` (when given) before each try.
   */
  async quickFixes(place?: () => Promise<void>): Promise<string[]> {
    const items = this.page.locator('.action-widget .action-list-item, .action-widget .monaco-list-row');
    for (let attempt = 1; ; attempt++) {
      await place?.();
      await this.page.keyboard.press('Control+.');
      const shown = await items
        .first()
        .waitFor({ timeout: 8_000 })
        .then(
          () => true,
          () => false,
        );
      if (shown) break;
      if (attempt === 4) {
        const focus = await this.page.evaluate(() => document.activeElement?.className ?? '(nothing)');
        throw new Error(`the quick fix menu never opened (4 tries; focus was on "${focus}")`);
      }
      await this.page.keyboard.press('Escape');
    }
    return (await items.allInnerTexts()).map((s) => s.trim()).filter(Boolean);
  }

  async applyQuickFix(label: string): Promise<void> {
    await this.page.locator('.action-widget .monaco-list-row', { hasText: label }).first().click();
  }
}
