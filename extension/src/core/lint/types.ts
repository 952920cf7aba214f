import type { SyntaxNode } from './syntax/syntaxNode';

export type RuleId =
  | 'HR001'
  | 'HR002'
  | 'HR003'
  | 'HR004'
  | 'HR005'
  | 'HR006'
  | 'HR007'
  | 'HR008'
  | 'HR009'
  | 'HR010'
  | 'HR011'
  | 'HR012'
  | 'HR013'
  | 'HR014'
  | 'HR015'
  | 'HR016'
  | 'HR017'
  | 'HR018';
export type Severity = 'error' | 'warning' | 'info';

/** A text replacement, in UTF-16 offsets of the linted text (what editors and JS strings use). */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

export interface Fix {
  title: string;
  /** The one a lightbulb applies by default. */
  preferred: boolean;
  edits: TextEdit[];
}

export interface Finding {
  rule: RuleId;
  severity: Severity;
  message: string;
  /** 0-based line and UTF-16 column, as editors count. */
  start: { line: number; col: number };
  end: { line: number; col: number };
  startIndex: number;
  endIndex: number;
  fixes: Fix[];
  /**
   * For confirming the finding with runtime evidence later: the source lines whose live bytes should
   * grow every iteration if the finding is right (the statement, and the loop it repeats in).
   */
  evidence?: { line: number; loopLine: number; loopEndLine?: number; name: string };
}

/** What a rule sees: the part of the tree to check, the whole file, the text, and the shared facts. */
export interface RuleContext {
  /** Where to look for findings: the module, or one top-level statement when re-linting after an edit. */
  root: SyntaxNode;
  /** The whole module, for file-level facts (a DataLoader's workers). */
  file: SyntaxNode;
  text: string;
  qualify(n: SyntaxNode | null): string | undefined;
  /** Local names bound by imports, to their qualified names. */
  bindings: ReadonlyMap<string, string>;
  /** The local name bound to `torch`, for code the fixes write. */
  torch: string | undefined;
  /** What a rule's fileKey read of this file, when an editing session has it at hand (still true of this text). */
  fileData?: (rule: RuleId) => unknown;
}

export function findingAt(
  rule: RuleId,
  severity: Severity,
  n: SyntaxNode,
  message: string,
  fixes: Fix[] = [],
  evidence?: Finding['evidence'],
): Finding {
  return {
    rule,
    severity,
    message,
    start: { line: n.startPosition.row, col: n.startPosition.column },
    end: { line: n.endPosition.row, col: n.endPosition.column },
    startIndex: n.startIndex,
    endIndex: n.endIndex,
    fixes,
    ...(evidence ? { evidence } : {}),
  };
}
