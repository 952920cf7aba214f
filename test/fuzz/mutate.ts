/** Mutations of real snapshots for the fuzzer. Deterministic for a given seed. */
export function rng(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Opcodes a snapshot uses, so swaps produce plausible-but-wrong programs rather than instant errors. */
const OPS = [
  0x28, 0x2e, 0x30, 0x31, 0x4a, 0x4b, 0x4d, 0x4e, 0x52, 0x58, 0x61, 0x62, 0x63, 0x65, 0x68, 0x6a, 0x71, 0x72, 0x73, 0x74, 0x75, 0x7d, 0x5d,
  0x29, 0x47, 0x80, 0x81, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8f, 0x90, 0x91, 0x93, 0x94, 0x95,
];

export const STRATEGIES = ['flip', 'truncate', 'insert', 'delete', 'duplicate', 'opcode', 'length', 'splice'] as const;
export type Strategy = (typeof STRATEGIES)[number];

export function mutate(input: Uint8Array, seed: number): { bytes: Uint8Array; strategy: Strategy } {
  const r = rng(seed);
  const int = (n: number) => Math.floor(r() * n);
  const strategy = STRATEGIES[int(STRATEGIES.length)]!;
  const n = input.length;
  let out: Uint8Array;
  switch (strategy) {
    case 'flip': {
      out = Uint8Array.from(input);
      for (let k = 1 + int(8); k > 0; k--) {
        const at = int(n);
        out[at] = out[at]! ^ (1 << int(8));
      }
      break;
    }
    case 'truncate':
      out = input.slice(0, int(n));
      break;
    case 'insert': {
      const at = int(n);
      const extra = Uint8Array.from({ length: 1 + int(16) }, () => int(256));
      out = concat(input.subarray(0, at), extra, input.subarray(at));
      break;
    }
    case 'delete': {
      const at = int(n);
      out = concat(input.subarray(0, at), input.subarray(Math.min(n, at + 1 + int(64))));
      break;
    }
    case 'duplicate': {
      const a = int(n);
      const b = Math.min(n, a + 1 + int(4096));
      const at = int(n);
      out = concat(input.subarray(0, at), input.subarray(a, b), input.subarray(at));
      break;
    }
    case 'opcode': {
      out = Uint8Array.from(input);
      for (let k = 1 + int(4); k > 0; k--) out[int(n)] = OPS[int(OPS.length)]!;
      break;
    }
    case 'length': {
      // Large or negative-looking declared sizes right after an opcode byte.
      out = Uint8Array.from(input);
      const at = int(n);
      for (let k = 0; k < 1 + int(8) && at + 1 + k < n; k++) out[at + 1 + k] = r() < 0.5 ? 0xff : 0x7f;
      break;
    }
    case 'splice': {
      // Tail of the file moved elsewhere: structure stays locally valid but globally wrong.
      const a = int(n);
      const b = int(n);
      out = concat(input.subarray(0, Math.min(a, b)), input.subarray(Math.max(a, b)), input.subarray(Math.min(a, b), Math.max(a, b)));
      break;
    }
  }
  return { bytes: out, strategy };
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
