import type { SyntaxNode } from '../syntax/syntaxNode';
import type { Finding, RuleContext, RuleId, Severity } from '../types';

/**
 * What a rule's findings may depend on beyond the statement they are in. An editing session reads
 * these to know what an edit can change (session.ts): a rule declares them, the session never names
 * a rule. Every rule depends on the file's imports (only files that import torch are linted).
 *  - `mode-switches`: `.eval()`/`.train()` calls in other statements (crossCheck.ts modeSignature);
 *  - `other-functions`: what functions defined elsewhere in the file return, store and run
 *    (analysis/summaries.ts, helperStores.ts; crossCheck.ts crossSignature);
 *  - `file`: something file-wide that `fileKey` reads.
 */
export type Dependency = 'mode-switches' | 'other-functions' | 'file';

export interface FileKey {
  key: string;
  spans: (readonly [number, number])[];
  /** What the rule read to make it, handed back to its run while the key stands (RuleContext.fileData). */
  data?: unknown;
}

export interface RuleDef {
  id: RuleId;
  /** Its kebab-case name, the title of its page in docs/rules/. */
  name: string;
  /** The severities its findings take, the usual one first (a finding picks one; settle may raise it). */
  severities: readonly Severity[];
  /** Off unless selected or given a severity (noisy by nature). */
  off?: boolean;
  dependsOn: readonly Dependency[];
  /**
   * With `file`: what its findings read of the whole file, as a key (a change re-lints the file),
   * and where in the text that is read. An editing session asks again only after an edit inside
   * one of those spans, or on lines holding one of `fileKeyWords` before or after it.
   */
  fileKey?(file: SyntaxNode, text: string): FileKey;
  /** The words without which no text can change the key (`DataLoader`, `collate_fn`, …). */
  fileKeyWords?: readonly string[];
  /** After every rule ran: its own findings adjusted by the others' (`given`: the user set its severity). */
  settle?(mine: readonly Finding[], all: readonly Finding[], given: boolean): void;
  run(ctx: RuleContext): Finding[];
}

/** A rule, typed: each rules/hrNNN.ts exports one, and rules/registry.ts lists them. */
export const defineRule = (r: RuleDef): RuleDef => r;
