/** Byte-level decoders shared by the VM. Platform-neutral (no Node Buffer). */

const utf8 = new TextDecoder('utf-8');
const latin1 = new TextDecoder('latin1');

/**
 * Short ASCII strings repeat by the hundred thousand ('N/A', actions, states) as separate pickle
 * values. A small direct-mapped cache returns one shared string for them: less to decode, less to
 * keep.
 */
const CACHE_SLOTS = 1024;
const cache: (string | undefined)[] = new Array(CACHE_SLOTS);

function cachedAscii(buf: Uint8Array, start: number, end: number): string | undefined {
  let h = end - start;
  for (let i = start; i < end; i++) {
    const c = buf[i]!;
    if (c >= 0x80) return undefined;
    h = (Math.imul(h, 31) + c) | 0;
  }
  const slot = (h >>> 0) % CACHE_SLOTS;
  const hit = cache[slot];
  if (hit !== undefined && hit.length === end - start) {
    let same = true;
    for (let i = 0; i < hit.length; i++) {
      if (hit.charCodeAt(i) !== buf[start + i]) {
        same = false;
        break;
      }
    }
    if (same) return hit;
  }
  const s = String.fromCharCode.apply(null, buf.subarray(start, end) as unknown as number[]);
  cache[slot] = s;
  return s;
}

/** UTF-8 str payload. Short ASCII strings (keys, file names, actions) skip TextDecoder's overhead. */
export function decodeUtf8(buf: Uint8Array, start: number, end: number): string {
  const n = end - start;
  if (n <= 16) {
    const s = cachedAscii(buf, start, end);
    if (s !== undefined) return s;
  } else if (n <= 48) {
    let ascii = true;
    for (let i = start; i < end; i++) {
      if (buf[i]! >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii) return String.fromCharCode.apply(null, buf.subarray(start, end) as unknown as number[]);
  }
  return utf8.decode(buf.subarray(start, end));
}

/** Python 2 `str` payloads (BINSTRING): bytes, read as latin-1 like Python's encoding='latin1'. */
export function decodeLatin1(buf: Uint8Array, start: number, end: number): string {
  return latin1.decode(buf.subarray(start, end));
}

const TWO32 = 4294967296;

/**
 * Little-endian two's-complement integer of n bytes (LONG1/LONG4). Up to 8 bytes it is computed in
 * doubles, which is exact below 2^53 (addresses ≈1.4e14, time_us ≈1.8e15); anything larger or wider
 * becomes a BigInt, as in the reference viewer.
 */
export function decodeLong(buf: Uint8Array, start: number, n: number): number | bigint {
  if (n === 0) return 0;
  if (n <= 8) {
    const value = smallLong(buf, start, n);
    if (value === value) return value;
  }
  // 32 bits at a time, most significant first: a 64-byte int is 16 small steps, not 64 hex strings.
  let big = 0n;
  let i = n;
  for (; i >= 4; i -= 4) big = (big << 32n) | BigInt(readU32(buf, start + i - 4));
  for (; i > 0; i--) big = (big << 8n) | BigInt(buf[start + i - 1]!);
  return BigInt.asIntN(8 * n, big);
}

const scratch = new Float64Array(1);

/** The same for 1–8 bytes, as a double: NaN unless a safe integer. */
export function smallLong(buf: Uint8Array, start: number, n: number): number {
  return longInto(buf, start, n, scratch, 0) ? scratch[0]! : NaN;
}

/**
 * smallLong into out[i], for a caller too large to have it inlined: a double returned from a call
 * is allocated (twice per trace entry). False, out unchanged, unless a safe integer.
 */
export function longInto(buf: Uint8Array, start: number, n: number, out: Float64Array, i: number): boolean {
  if (n >= 4 && n <= 7 && buf[start + n - 1]! < 0x80) {
    // Positive in 4–7 bytes (a trace's addresses and times take 6–7): two halves, safe below 2**21 · 2**32.
    const hi = (n > 4 ? buf[start + 4]! : 0) | (n > 5 ? buf[start + 5]! << 8 : 0) | (n > 6 ? buf[start + 6]! << 16 : 0);
    if (hi >= 0x200000) return false;
    out[i] = hi * 0x100000000 + readU32(buf, start);
    return true;
  }
  if (n === 0) {
    out[i] = 0;
    return true;
  }
  // Negative values are read as -(~x + 1) so that every partial sum stays as small as the result.
  const negative = buf[start + n - 1]! >= 0x80;
  const flip = negative ? 0xff : 0;
  let value = 0;
  for (let i = n - 1; i >= 0; i--) value = value * 256 + (buf[start + i]! ^ flip);
  if (negative) value = -(value + 1);
  if (!Number.isSafeInteger(value)) return false;
  out[i] = value;
  return true;
}

export function readU32(buf: Uint8Array, p: number): number {
  return (buf[p]! | (buf[p + 1]! << 8) | (buf[p + 2]! << 16)) + buf[p + 3]! * 0x1000000;
}

export function readI32(buf: Uint8Array, p: number): number {
  return buf[p]! | (buf[p + 1]! << 8) | (buf[p + 2]! << 16) | (buf[p + 3]! << 24);
}

/** 8-byte little-endian length. Anything past 2^53 is reported as Infinity so limit checks reject it. */
export function readU64(buf: Uint8Array, p: number): number {
  const lo = readU32(buf, p);
  const hi = readU32(buf, p + 4);
  return hi >= 0x200000 ? Infinity : hi * TWO32 + lo;
}
