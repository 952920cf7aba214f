import type { Page } from 'playwright-core';

export interface LineDecoration {
  line: number;
  text: string;
}

/** The active text editor: line text, after-line decorations, hovers and code lenses. */
export class Editor {
  constructor(private readonly page: Page) {}

  private get editor() {
    return this.page.locator('.editor-instance .monaco-editor').first();
  }

  /** Goes to a 1-based line (Ctrl+G). */
  async goToLine(line: number): Promise<void> {
    await this.editor.click();
    await this.page.keyboard.press('Control+G');
    await this.page.keyboard.type(String(line));
    await this.page.keyboard.press('Enter');
    // Keys sent before the box closes would still go to it.
    await this.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
  }

  /** Types at the start of line `line` (Enter makes new lines). */
  async typeAt(line: number, keys: string[]): Promise<void> {
    await this.goToLine(line);
    await this.page.keyboard.press('Home');
    for (const k of keys) await this.page.keyboard.press(k);
  }

  /** After-line decoration texts, read from their ::after content, with their line numbers. */
  async afterDecorations(): Promise<LineDecoration[]> {
    return this.page.evaluate(() => {
      const out: { line: number; text: string }[] = [];
      const lines = document.querySelectorAll('.editor-instance .view-lines .view-line');
      const numbers = [...document.querySelectorAll('.editor-instance .margin-view-overlays .line-numbers')];
      lines.forEach((el) => {
        const top = (el as HTMLElement).style.top;
        const num = numbers.find((n) => (n.parentElement as HTMLElement).style.top === top);
        for (const span of el.querySelectorAll('span')) {
          const c = getComputedStyle(span, '::after').content;
          if (c && c !== 'none' && c !== 'normal') out.push({ line: Number(num?.textContent ?? 0), text: c.replace(/^"|"$/g, '') });
        }
      });
      return out;
    });
  }

  /** The after-line decorations once one of them contains `text` (or as they are after ~10 s). */
  async afterDecorationsWith(text: string): Promise<LineDecoration[]> {
    let decos = await this.afterDecorations();
    for (let i = 0; i < 50 && !decos.some((d) => d.text.includes(text)); i++) {
      await this.page.waitForTimeout(200);
      decos = await this.afterDecorations();
    }
    return decos;
  }

  /** Hovers line `line`'s text and returns the hover widget's text. */
  async hover(line: number): Promise<string> {
    await this.goToLine(line);
    const cursor = this.page.locator('.editor-instance .cursor').first();
    const box = await cursor.boundingBox();
    if (box) await this.page.mouse.move(box.x + 2, box.y + box.height / 2);
    const hover = this.page.locator('.monaco-hover-content').first();
    await hover.waitFor({ timeout: 30_000 });
    return hover.innerText();
  }

  async codeLenses(): Promise<string[]> {
    return (await this.page.locator('.editor-instance .codelens-decoration').allInnerTexts()).map((s) => s.trim());
  }
}
