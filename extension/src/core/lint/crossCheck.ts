import type { SyntaxNode } from './syntax/syntaxNode';
import { MODE_SWITCH, modeCalls } from './analysis/evalContext';
import { helperFacts, runsModule } from './analysis/calls';
import { enclosingLoop, scopeOf } from './analysis/scopes';
import { underNoGradHere } from './analysis/gradMode';
import { GradFlow, graphSummary } from './analysis/gradFlow';
import { qualifier } from './analysis/imports';
import { NodeIndex, anchored, calleeOf, nodesOf } from './syntax/nodeIndex';
import { storeFlows } from './analysis/helperStores';
import { keptParams } from './analysis/objectState';
import { ownCalls } from './analysis/summaries';
import type { CrossRefs } from './analysis/summaries';
import { CarriedFacts, stopCarried, useCarried } from './analysis/carried';

/**
 * What other functions' findings may read from these units (CrossRefs): the summary and helper
 * facts of each function defined in them that a call site looked up, and, for a unit that calls a
 * function whose callers an eval loop looked at, the unit itself. An editor compares this before
 * and after an edit; when it differs, re-linting the edited units alone is not enough.
 */
export function crossSignature(
  root: SyntaxNode,
  units: readonly SyntaxNode[],
  bindings: ReadonlyMap<string, string>,
  refs: CrossRefs,
  facts?: CarriedFacts,
): string {
  if (!refs.defs.size && !refs.callers.size) return '';
  const out: string[] = [];
  const callers = refs.callers.size ? new RegExp(`(?<![\\w])(?:${[...refs.callers].join('|')})\\s*\\(`) : undefined;
  // Most edits touch units that define nothing another unit looked up and call no such function: read from the text.
  if (!units.some((u) => callers?.test(u.text) || [...u.text.matchAll(/\bdef\s+(\w+)/g)].some((m) => refs.defs.has(m[1]!)))) return '';
  const ix = NodeIndex.attach(root, bindings);
  if (facts) useCarried(root.tree, facts, units);
  try {
    const qualify = qualifier(bindings);
    // What the function does itself: its callers' grad mode is compared where they are edited.
    const noGrad = (n: SyntaxNode) => underNoGradHere(n, qualify);
    const flow = new GradFlow(qualify, noGrad);
    for (const u of units) {
      // A call to a function whose callers an eval loop reads: what that loop reads of it (eval mode before it, no-grad around it).
      if (callers?.test(u.text)) {
        for (const c of nodesOf(u, 'call')) {
          // `f(…)`, `self.f(…)`, and a method's `obj.f(…)` (callers.ts callersOf).
          const name = /(?:^|\.)(\w+)$/.exec(calleeOf(c).text)?.[1];
          // (And whether a backward follows it in its loop: HR013 reads that of a per-step function's callers.)
          const loop = enclosingLoop(c);
          const later = loop ? /\bbackward\s*\(/.test(loop.text.slice(c.endIndex - loop.startIndex)) : false;
          if (name && refs.callers.has(name))
            out.push(
              `caller:${name}:${
                modeCalls(scopeOf(c))
                  .filter((m) => m.at <= c.startIndex)
                  .at(-1)?.eval === true
              }:${underNoGradHere(c, qualify)}:${later}`,
            );
        }
      }
      const defs =
        u.type === 'function_definition'
          ? [u, ...nodesOf(u, 'function_definition').filter((d) => d.id !== u.id)]
          : nodesOf(u, 'function_definition');
      for (const fn of defs) {
        const name = fn.childForFieldName('name')?.text ?? '';
        if (!refs.defs.has(name)) continue;
        const model = ownCalls(fn).some((x) => !noGrad(x) && (runsModule(x) || flow.runsModel(x)));
        out.push(
          `${name}:${JSON.stringify(graphSummary(fn, qualify, noGrad))}:${model}:${JSON.stringify(helperFacts(fn))}:${storeFlows(fn, qualify, noGrad)}:${keptParams(fn, qualify, noGrad)}`,
        );
      }
    }
  } finally {
    if (NodeIndex.of(root) === ix) NodeIndex.detach(root);
    stopCarried(root.tree);
  }
  return out.sort().join('\n');
}

/**
 * crossSignature with the last answer kept: an editor's next edit is most often in the function it
 * just edited, and that function's signature before the edit is the one computed after the last
 * (same tree, units, bindings and cross-references; the references only grow between full lints).
 * Keyed by the parser's tree, which the session keeps: a root read from it is made anew per lint.
 */
export class CrossSignatures {
  private last:
    | { tree: object; units: string; bindings: ReadonlyMap<string, string>; refs: CrossRefs; size: number; sig: string }
    | undefined;
  /** Signatures computed (not reused) so far. */
  computed = 0;
  /** Facts of the functions outside the units, as these signatures read them (their callers' grad mode left out): kept between edits like the lint's. */
  readonly facts = new CarriedFacts();

  of(tree: object, root: SyntaxNode, units: readonly SyntaxNode[], bindings: ReadonlyMap<string, string>, refs: CrossRefs): string {
    const key = units
      .map((u) => `${u.type}@${u.startIndex}-${u.endIndex}`)
      .sort()
      .join(',');
    const size = refs.defs.size + refs.callers.size;
    const l = this.last;
    if (l && l.tree === tree && l.units === key && l.bindings === bindings && l.refs === refs && l.size === size) return l.sig;
    const sig = crossSignature(root, units, bindings, refs, this.facts);
    this.computed++;
    this.last = { tree, units: key, bindings, refs, size, sig };
    return sig;
  }

  /** Forgets the answer kept (its tree is about to be edited or freed). */
  clear(): void {
    this.last = undefined;
  }
}

/**
 * What loops in other statements read of these units' mode switches (hr004.ts): the module-level
 * `.eval()`/`.train(…)` calls (the last one before a module-level loop), and how many switches a
 * module-level loop's flag check (`flagSwitched`, on the module's text) sees. Typing inside a
 * receiver's name or a docstring changes neither: no re-lint of the file.
 */
export function modeSignature(units: readonly SyntaxNode[]): string {
  return units
    .map((u) => {
      const calls = anchored(u, /\.\s*(?<at>eval|train)\s*\(/, ['call'])
        .filter((c) => /\.(eval|train)$/.test(calleeOf(c).text) && scopeOf(c).type === 'module')
        .map((c) => `${calleeOf(c).method}${c.childForFieldName('arguments')?.text}`);
      // A module-level statement that turns grad off for the rest of the script (gradMode.ts disabledFrom).
      const off = anchored(u, /set_grad_enabled|__enter__/, ['call'])
        .filter((c) => scopeOf(c).type === 'module')
        .map((c) => c.text);
      return `${calls.join(',')}|${off.join(',')}|${u.text.match(new RegExp(MODE_SWITCH.source, 'g'))?.length ?? 0}`;
    })
    .join(';');
}
