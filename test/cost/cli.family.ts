import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CostFamily } from './family';

// Issue 39, the CLI's own readers and writers: a lint input whose analysis was quadratic, a sparse
// file too large to read, a piped log of a million OOM lines, and names that carry bidi and C1
// characters into --json output. Our own generators, written from the shape of each attack.

/** Bidi overrides and isolates, a C1 CSI, a line separator, an Arabic letter mark, a BOM. */
const SPOOF = ['\u202e', '\u2066', '\u009b', '\u2028', '\u2029', '\u061c', '\u200f', '\ufeff'];

/** `t = loss * k; total += t`, n pairs inside one training loop (the 340 KB file at 8,000). */
const lossPairs: CostFamily = {
  name: 'lint-loss-pairs',
  unit: '`t = loss * k; total += t` pairs in a training loop',
  make(dir, n) {
    const lines = ['import torch', '', 'def train(model, loader, opt):', '    total = 0', '    for x, y in loader:'];
    lines.push('        loss = model(x, y)');
    for (let k = 0; k < n; k++) lines.push(`        t = loss * ${k}`, '        total += t');
    lines.push('        loss.backward()', '        opt.step()', '    return total', '');
    const file = join(dir, 'train.py');
    writeFileSync(file, lines.join('\n'));
    return { argv: ['lint', file] };
  },
  small: 2000,
  full: 8000,
};

/** A sparse .py of n MiB: no disk used, but a reader that reads it whole reads n MiB of NULs. */
const sparseFile: CostFamily = {
  name: 'lint-sparse-file',
  unit: 'MiB of a sparse .py',
  make(dir, n) {
    const file = join(dir, 'big.py');
    writeFileSync(file, 'x = 1\n');
    truncateSync(file, n * 2 ** 20);
    return { argv: ['lint', file] };
  },
  small: 96,
  full: 3 * 1024,
};

/** n OOM lines piped in (the 64 MB log holds 1.7 million of them). */
const oomStdin: CostFamily = {
  name: 'explain-oom-stdin',
  unit: 'OOM lines on standard input',
  make(dir, n) {
    const file = join(dir, 'oom.log');
    writeFileSync(file, 'cuda runtime error (2) : out of memory\n'.repeat(n));
    return { argv: ['check', '-', '--explain-oom'], stdin: file };
  },
  small: 300_000,
  full: 1_700_000,
};

/** n Python files whose names carry spoofing characters, each with a finding: `lint --format FORMAT`. */
function spoofedNames(format: 'json' | 'sarif'): CostFamily {
  return {
    name: `lint-${format}-spoofed-names`,
    unit: 'files named with bidi and C1 characters',
    make(dir, n) {
      const src = join(dir, 'src');
      mkdirSync(src);
      const body =
        'import torch\n\ndef train(model, loader, opt):\n    total_loss = 0\n    for x in loader:\n        loss = model(x)\n        loss.backward()\n        opt.step()\n        total_loss += loss\n';
      for (let k = 0; k < n; k++) writeFileSync(join(src, `m${k}${SPOOF[k % SPOOF.length]}gnp.py`), body);
      return { argv: ['lint', 'src', '--format', format] };
    },
    small: 40,
    full: 2000,
  };
}

/** A value as pickle protocol 2: dicts, lists, strings and integers, all a snapshot needs. */
function pickle(v: unknown): Buffer {
  const out: Buffer[] = [Buffer.from([0x80, 2])];
  const put = (x: unknown): void => {
    if (typeof x === 'string') {
      const b = Buffer.from(x, 'utf8');
      const n = Buffer.alloc(5);
      n[0] = 0x58; // BINUNICODE
      n.writeUInt32LE(b.length, 1);
      out.push(n, b);
    } else if (typeof x === 'number') {
      // LONG1, 8 bytes little-endian: addresses pass 2^31.
      const n = Buffer.alloc(10);
      n[0] = 0x8a;
      n[1] = 8;
      n.writeBigInt64LE(BigInt(x), 2);
      out.push(n);
    } else if (Array.isArray(x)) {
      out.push(Buffer.from(']('));
      for (const e of x) put(e);
      out.push(Buffer.from('e'));
    } else {
      out.push(Buffer.from('}('));
      for (const [k, e] of Object.entries(x as object)) {
        put(k);
        put(e);
      }
      out.push(Buffer.from('u'));
    }
  };
  put(v);
  out.push(Buffer.from('.'));
  return Buffer.concat(out);
}

/** A snapshot of n allocations, each from its own frame in a file whose name carries spoofing characters. */
function spoofedSnapshot(n: number, salt: number): Buffer {
  const base = 0x7f0000000000;
  const trace = Array.from({ length: n }, (_, k) => ({
    action: 'alloc',
    addr: base + k * 512,
    size: 512 * (1 + ((k + salt) % 3)),
    stream: 0,
    frames: [
      { filename: `m${k}${SPOOF[k % SPOOF.length]}gnp.py`, line: k + 1, name: `f${SPOOF[(k + 1) % SPOOF.length]}` },
      { filename: 'train.py', line: 3, name: 'step' },
    ],
  }));
  return pickle({ segments: [], device_traces: [trace] });
}

/** `analyze`/`diff --json` over snapshots whose frames carry spoofing characters. */
function spoofedFrames(command: 'analyze' | 'diff'): CostFamily {
  return {
    name: `${command}-json-spoofed-frames`,
    unit: 'allocations from frames named with bidi and C1 characters',
    make(dir, n) {
      const a = join(dir, 'a.pickle');
      const b = join(dir, 'b.pickle');
      writeFileSync(a, spoofedSnapshot(n, 0));
      writeFileSync(b, spoofedSnapshot(n, 1));
      return { argv: command === 'analyze' ? ['analyze', a, '--json', '--top', '1000000'] : ['diff', a, b, '--json', '--top', '1000000'] };
    },
    small: 200,
    full: 20_000,
  };
}

export const families: CostFamily[] = [
  lossPairs,
  sparseFile,
  oomStdin,
  spoofedNames('json'),
  spoofedNames('sarif'),
  spoofedFrames('analyze'),
  spoofedFrames('diff'),
];
