/**
 * The `def`/`class` that encloses each line of a Python file, read from indentation alone (no
 * parser: it must cost little on a 10,000-line modeling file and never fail on a file that does not
 * parse). Strings, brackets, comments and backslash continuations are skipped, so only the first
 * physical line of a logical line opens or closes a scope.
 */

export interface Enclosing {
  /** The qualified name enclosing 1-based `line` (`GPT2Attention.forward`; nested functions joined by '.'), or undefined at module level. */
  at(line: number): string | undefined;
}

const HEADER = /^(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)/;
const STRING_START = /^([rRbBuUfF]{0,2})('''|"""|'|")/;

interface Scope {
  indent: number;
  name: string;
}

/** Indexes `text` once: the answer for every line is kept as an index into a table of names. */
export function enclosing(text: string): Enclosing {
  const names: string[] = [];
  const ids = new Map<string, number>();
  const perLine: number[] = [0];
  const stack: Scope[] = [];
  const current = (): number => {
    if (!stack.length) return -1;
    const q = stack.map((s) => s.name).join('.');
    let id = ids.get(q);
    if (id === undefined) ids.set(q, (id = names.push(q) - 1));
    return id;
  };
  let depth = 0; // open brackets
  let quote = ''; // the open string's delimiter, across lines only for triple quotes
  let continued = false;
  let cur = -1;
  let lineStart = 0;
  while (lineStart <= text.length) {
    let end = text.indexOf('\n', lineStart);
    if (end < 0) end = text.length;
    const line = text.slice(lineStart, text[end - 1] === '\r' ? end - 1 : end);
    const logicalStart = depth === 0 && quote === '' && !continued;
    if (logicalStart) {
      const body = line.trimStart();
      if (body && body[0] !== '#') {
        const indent = line.length - body.length;
        while (stack.length && stack[stack.length - 1]!.indent >= indent) stack.pop();
        const m = HEADER.exec(body);
        if (m) stack.push({ indent, name: m[2]! });
        cur = current();
      }
    }
    perLine.push(cur);
    ({ depth, quote, continued } = scan(line, depth, quote));
    lineStart = end + 1;
  }
  return {
    at(line: number): string | undefined {
      const id = perLine[line];
      return id === undefined || id < 0 ? undefined : names[id];
    },
  };
}

/** Carries bracket depth, an open triple-quoted string and a trailing backslash across one physical line. */
function scan(line: string, depth: number, quote: string): { depth: number; quote: string; continued: boolean } {
  let i = 0;
  const n = line.length;
  while (i < n) {
    if (quote) {
      const close = findClose(line, i, quote);
      if (close < 0) {
        // A single-quoted string ends with its line (unless continued by a backslash).
        if (quote.length === 1 && !line.endsWith('\\')) quote = '';
        return { depth, quote, continued: quote.length === 1 };
      }
      i = close + quote.length;
      quote = '';
      continue;
    }
    const c = line[i]!;
    if (c === '#') return { depth, quote, continued: false };
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth = Math.max(0, depth - 1);
    else if (/[rRbBuUfF'"]/.test(c) && (i === 0 || !/\w/.test(line[i - 1]!))) {
      const m = STRING_START.exec(line.slice(i, i + 5));
      if (m) {
        quote = m[2]!;
        i += m[0].length;
        continue;
      }
    }
    i++;
  }
  return { depth, quote, continued: line.endsWith('\\') };
}

/** The index of the delimiter closing a string from `i`, skipping backslash escapes, or -1. */
function findClose(line: string, i: number, quote: string): number {
  for (let j = i; j < line.length; j++) {
    if (line[j] === '\\') {
      j++;
      continue;
    }
    if (line.startsWith(quote, j)) return j;
  }
  return -1;
}
