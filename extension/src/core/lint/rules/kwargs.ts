import type { SyntaxNode } from '../syntax/syntaxNode';
import type { RuleContext, TextEdit } from '../types';

/** A call's keyword argument by name. */
export function keyword(call: SyntaxNode, name: string): SyntaxNode | undefined {
  return (
    call
      .childForFieldName('arguments')
      ?.namedChildren.find((a) => a?.type === 'keyword_argument' && a.childForFieldName('name')?.text === name) ?? undefined
  );
}

/** Deletes an argument with the comma that joins it to its neighbours, leaving the rest as written. */
export function removeArgument(arg: SyntaxNode, ctx: RuleContext): TextEdit {
  const prev = arg.previousSibling;
  const next = arg.nextSibling;
  if (next?.type === ',') {
    let end = next.endIndex;
    while (ctx.text[end] === ' ') end++;
    return { start: arg.startIndex, end, text: '' };
  }
  if (prev?.type === ',') return { start: prev.startIndex, end: arg.endIndex, text: '' };
  return { start: arg.startIndex, end: arg.endIndex, text: '' };
}

/** Inserts a keyword argument before the closing parenthesis. */
export function addArgument(call: SyntaxNode, text: string, ctx: RuleContext): TextEdit {
  const args = call.childForFieldName('arguments')!;
  const close = args.endIndex - 1;
  const before = ctx.text.slice(args.startIndex + 1, close).trimEnd();
  const sep = before === '' ? '' : before.endsWith(',') ? ' ' : ', ';
  const at = args.startIndex + 1 + before.length;
  return { start: at, end: at, text: `${sep}${text}` };
}
