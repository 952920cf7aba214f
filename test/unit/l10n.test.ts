import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { ROOT } from './helpers';

const HOST = join(ROOT, 'extension', 'src', 'host');
/** Notifications: every argument (message, buttons, a modal's `detail`) must be localized. */
const MESSAGES = /^show(Information|Warning|Error)Message$/;
/** Pickers, boxes, dialogs and progress: these options of theirs are shown to the user. */
const PROMPTS = new Set(['showQuickPick', 'showInputBox', 'showOpenDialog', 'showSaveDialog', 'withProgress']);
const SHOWN_OPTIONS = new Set(['title', 'prompt', 'placeHolder', 'openLabel', 'detail']);
/** Escaping helpers (core/text.ts) wrap data, or a whole composed message: look inside them. */
const ESCAPES = new Set(['messageText', 'plain', 'plainLines', 'markdownText']);

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const calleeName = (e: ts.Expression): string | undefined =>
  ts.isPropertyAccessExpression(e) ? e.name.text : ts.isIdentifier(e) ? e.text : undefined;

/** `vscode.l10n.t(...)` anywhere inside the node. */
function hasL10n(n: ts.Node): boolean {
  if (ts.isCallExpression(n) && n.expression.getText() === 'vscode.l10n.t') return true;
  return ts.forEachChild(n, (c) => (hasL10n(c) ? true : undefined)) ?? false;
}

/** A string or template literal with English in it that no l10n.t call produces. */
function unlocalized(e: ts.Expression): boolean {
  if (ts.isCallExpression(e) && ESCAPES.has(calleeName(e.expression) ?? '') && e.arguments[0]) return unlocalized(e.arguments[0]);
  if (ts.isParenthesizedExpression(e)) return unlocalized(e.expression);
  if (ts.isConditionalExpression(e)) return unlocalized(e.whenTrue) || unlocalized(e.whenFalse);
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return /[A-Za-z]/.test(e.text);
  if (ts.isTemplateExpression(e))
    return !hasL10n(e) && /[A-Za-z]/.test([e.head.text, ...e.templateSpans.map((s) => s.literal.text)].join(''));
  return false;
}

function shownOptions(o: ts.ObjectLiteralExpression, names: ReadonlySet<string>): ts.Expression[] {
  return o.properties.flatMap((p) => (ts.isPropertyAssignment(p) && names.has(p.name.getText()) ? [p.initializer] : []));
}

/** "file:line: text" for each user-facing literal of a host file that is not wrapped in vscode.l10n.t(). */
function unlocalizedStrings(file: string, source: string): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  const out: string[] = [];
  const report = (e: ts.Expression) =>
    out.push(`${file}:${sf.getLineAndCharacterOfPosition(e.getStart()).line + 1}: ${e.getText().slice(0, 100)}`);
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n)) {
      const name = calleeName(n.expression) ?? '';
      if (MESSAGES.test(name)) {
        for (const a of n.arguments) {
          if (ts.isObjectLiteralExpression(a))
            shownOptions(a, new Set(['detail']))
              .filter(unlocalized)
              .forEach(report);
          else if (unlocalized(a)) report(a);
        }
      } else if (PROMPTS.has(name)) {
        for (const a of n.arguments)
          if (ts.isObjectLiteralExpression(a)) shownOptions(a, SHOWN_OPTIONS).filter(unlocalized).forEach(report);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe('host strings are l10n-ready', () => {
  it('the check finds an unlocalized message, button and option (it is not vacuous)', () => {
    const src = [
      "void vscode.window.showInformationMessage(`Headroom: ${messageText(x)} ended.`, 'Show');",
      "void vscode.window.showWarningMessage(messageText('Plain words'));",
      "void vscode.window.showInputBox({ title: 'A title', prompt: vscode.l10n.t('Fine') });",
      "void vscode.window.showErrorMessage(vscode.l10n.t('Headroom: {0}', messageText(x)), vscode.l10n.t('Open'));",
      "void vscode.window.showWarningMessage(vscode.l10n.t('Sure?'), { modal: true, detail: `Runs ${x}` });",
    ].join('\n');
    const found = unlocalizedStrings('sample.ts', src);
    assert.deepEqual(
      found.map((f) => f.split(': ')[0]),
      ['sample.ts:1', 'sample.ts:1', 'sample.ts:2', 'sample.ts:3', 'sample.ts:5'],
      found.join('\n'),
    );
  });

  it('every notification, button, picker/box/dialog title and progress title in extension/src/host is wrapped in vscode.l10n.t()', () => {
    const files = tsFiles(HOST);
    assert.ok(files.length > 20, `host files found: ${files.length}`);
    const found = files.flatMap((f) => unlocalizedStrings(relative(ROOT, f), readFileSync(f, 'utf8')));
    assert.deepEqual(found, [], `wrap these in vscode.l10n.t(...) (data as {0} arguments):\n${found.join('\n')}`);
  });
});
