import type { SyntaxNode } from '../syntax/syntaxNode';
import { isWordChar, memo } from '../syntax/nodeIndex';

/** The class an object was built from in this file (`meter = AverageMeter()`, `self.m = utils.AverageMeter('loss')`): its last name. */
export function constructedAs(file: SyntaxNode, obj: string): string | undefined {
  // Once per object and lint: every `obj.update(…)` of a loop asks.
  return memo(file, `ctor:${obj}`, () => {
    // At each whole-word occurrence of the name (indexOf, not a pattern over the whole file per object): `= Class(`.
    const text = file.text;
    const made = /\s*=\s*(?:\w+\.)*([A-Z]\w*)\s*\(/y;
    for (let i = text.indexOf(obj); i >= 0; i = text.indexOf(obj, i + 1)) {
      const before = i > 0 ? text.charCodeAt(i - 1) : 32;
      if (isWordChar(before) || before === 46) continue;
      made.lastIndex = i + obj.length;
      const m = made.exec(text);
      if (m) return m[1];
    }
    return undefined;
  });
}

/** Classes whose instances compute from what they are given (a distance, a loss, a penalty): called on a graph, they give one. */
const COMPUTES = /(Loss|Distance|Dist|Criterion|Divergence|Similarity|Penalty|Regularizer|Regulariser)(Mean|Sum|L1|L2|Fn|Module|Layer)?$/;

/** Whether `name` holds an instance of a class that reads as a computation (`self.chamfer = ChamferDistanceMean()`). */
export const computesFromInputs = (file: SyntaxNode, name: string): boolean => COMPUTES.test(constructedAs(file, name) ?? '');
