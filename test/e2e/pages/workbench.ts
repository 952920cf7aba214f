import type { Locator, Page } from 'playwright-core';

const WAIT = { timeout: 60_000 };

/** The workbench shell: readiness, the command palette, quick open and quick inputs. */
export class Workbench {
  constructor(readonly page: Page) {}

  async ready(): Promise<void> {
    await this.page.waitForSelector('.monaco-workbench', WAIT);
    await this.page.waitForSelector('.statusbar', WAIT);
    // The explorer lists the folder once the remote file system answers.
    await this.page.waitForSelector('.explorer-folders-view .monaco-list-row', WAIT);
  }

  get quickInput(): Locator {
    return this.page.locator('.quick-input-widget');
  }

  /** Keyboard focus on the workbench itself, out of any webview (where shortcuts do not reach it). */
  async focus(): Promise<void> {
    await this.page.locator('.explorer-folders-view .monaco-list').first().focus();
  }

  private async openPalette(text: string): Promise<void> {
    await this.focus();
    await this.page.keyboard.press('Escape');
    await this.page.keyboard.press('F1');
    await this.quickInput.waitFor({ state: 'visible', ...WAIT });
    await this.page.keyboard.type(text);
  }

  /**
   * Labels the palette lists for `text` (the palette is closed again afterwards). The list filters
   * as keys arrive, so it is read once the input holds all of `text` and two reads agree.
   */
  async paletteLabels(text: string): Promise<string[]> {
    await this.openPalette(text);
    await this.page.waitForFunction(
      (t) => ((document.querySelector('.quick-input-widget input.input') as HTMLInputElement | null)?.value ?? '').endsWith(t),
      text,
      WAIT,
    );
    const rows = this.quickInput.locator('.monaco-list-row .label-name');
    let last = '';
    let labels: string[] = [];
    for (let i = 0; i < 50; i++) {
      await this.page.waitForTimeout(200);
      labels = (await rows.allInnerTexts()).map((s) => s.trim());
      const now = labels.join('\n');
      if (now === last && labels.length) break;
      last = now;
    }
    await this.page.keyboard.press('Escape');
    return labels;
  }

  /**
   * Runs a command by its palette title ("Headroom: Open Memory Snapshot…"): waits until the
   * palette's focused row is that command, then presses Enter. A palette that closes under us
   * (an editor opening takes the focus) is reopened, up to three times.
   */
  async runCommand(title: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      await this.openPalette(title);
      const ok = await this.page
        .waitForFunction(
          (t) => document.querySelector('.quick-input-widget .monaco-list-row.focused .label-name')?.textContent?.trim() === t,
          title,
          { timeout: 20_000 },
        )
        .then(() => true)
        .catch(() => false);
      if (ok) {
        await this.page.keyboard.press('Enter');
        return;
      }
      if (attempt === 3) throw new Error(`the command palette never offered "${title}"`);
    }
  }

  /**
   * Answers VS Code's own file dialog (simple dialog) with an absolute path. The dialog fills in its
   * starting folder after it opens, so the path is typed once the listing is there, and typed again
   * if the dialog overwrote it before it was accepted.
   */
  async answerFileDialog(path: string, beforeEnter?: () => void): Promise<void> {
    const box = this.quickInput.locator('input.input');
    await box.waitFor({ state: 'visible', ...WAIT });
    await this.quickInput.locator('.monaco-list-row').first().waitFor(WAIT);
    for (let attempt = 1; ; attempt++) {
      await box.fill(path);
      await this.page.waitForTimeout(300);
      if ((await box.inputValue()) === path) {
        const title = await this.dialogTitle();
        beforeEnter?.();
        await box.press('Enter');
        // Accepted once the dialog is gone, or once another dialog (another title) replaced it. A
        // changed input alone is not enough: the dialog may still be filling in its starting folder.
        const accepted = await this.page
          .waitForFunction(
            (t) => {
              const w = document.querySelector('.quick-input-widget') as HTMLElement | null;
              if (!w || w.style.display === 'none') return true;
              return (w.querySelector('.quick-input-title')?.textContent ?? '') !== t;
            },
            title,
            { timeout: 10_000 },
          )
          .then(() => true)
          .catch(() => false);
        if (accepted) return;
      }
      if (attempt === 3) throw new Error(`the file dialog did not accept ${path}`);
    }
  }

  private async dialogTitle(): Promise<string> {
    return (
      (await this.quickInput
        .locator('.quick-input-title')
        .first()
        .textContent()
        .catch(() => null)) ?? ''
    );
  }

  /** Opens a workspace file by name through quick open. */
  async openFile(name: string): Promise<void> {
    await this.focus();
    await this.page.keyboard.press('Escape');
    await this.page.keyboard.press('Control+P');
    await this.quickInput.waitFor({ state: 'visible', ...WAIT });
    await this.page.keyboard.type(name);
    // The list filters as keys arrive: until it has, Enter would open the most recent editor.
    await this.page.waitForFunction(
      (n) => {
        const w = document.querySelector('.quick-input-widget');
        const value = (w?.querySelector('input.input') as HTMLInputElement | null)?.value;
        const focused = w?.querySelector('.monaco-list-row.focused .label-name') as HTMLElement | null;
        return value === n && focused?.innerText.trim() === n;
      },
      name,
      WAIT,
    );
    await this.page.keyboard.press('Enter');
    await this.page.locator(`.editor-group-container.active .tab.active[data-resource-name="${name}"]`).first().waitFor(WAIT);
  }

  /** The file name of the active editor tab. */
  async activeFile(): Promise<string | null> {
    return this.page.locator('.editor-group-container.active .tab.active[data-resource-name]').first().getAttribute('data-resource-name');
  }

  /** Texts of the visible notification toasts. */
  async notifications(): Promise<string[]> {
    return (await this.page.locator('.notification-toast .notification-list-item-message').allInnerTexts()).map((s) => s.trim());
  }
}
