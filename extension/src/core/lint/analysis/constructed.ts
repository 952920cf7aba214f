import type { SyntaxNode } from '../syntax/syntaxNode';
import { isWordChar, memo } from '../syntax/nodeIndex';

/** The class an object was built from in this file (`meter = AverageMeter()`, `self.m = utils.AverageMeter('loss')`): its last name. */
export function constructedAs(file: SyntaxNode, obj: string): string | undefined {
  return constructions(file).get(obj);
}

/** Every `name = Class(` of the file, the first one per name: one pass over the text per lint (each call's callee asks). */
function constructions(file: SyntaxNode): Map<string, string> {
  return memo(file, 'constructions', () => {
    const out = new Map<string, string>();
    const text = file.text;
    // From each `= Class(` back to the name before it (a pattern anchored at `=`: cheap on a large file).
    for (const m of text.matchAll(/=[ \t]*(?:\w+\.)*([A-Z]\w*)[ \t]*\(/g)) {
      let e = m.index;
      if ('=!<>+-*/%&|^:'.includes(text[e - 1] ?? '')) continue;
      while (e > 0 && (text[e - 1] === ' ' || text[e - 1] === '\t')) e--;
      let b = e;
      while (b > 0 && (isWordChar(text.charCodeAt(b - 1)) || text[b - 1] === '.')) b--;
      const name = text.slice(b, e);
      if (/^[A-Za-z_]\w*(\.\w+)*$/.test(name) && !out.has(name)) out.set(name, m[1]!);
    }
    return out;
  });
}

/** Classes whose instances compute from what they are given (a distance, a loss, a penalty): called on a graph, they give one. */
const COMPUTES = /(Loss|Distance|Dist|Criterion|Divergence|Similarity|Penalty|Regularizer|Regulariser)(Mean|Sum|L1|L2|Fn|Module|Layer)?$/;

/** Whether `name` holds an instance of a class that reads as a computation (`self.chamfer = ChamferDistanceMean()`). */
export const computesFromInputs = (file: SyntaxNode, name: string): boolean => COMPUTES.test(constructedAs(file, name) ?? '');
