import type { Snapshot } from '../snapshot/model';
import type { BackwardInfo } from './backward';
import { NOT_BACKWARD } from './backward';
import { Origin } from './replay';
import type { Elements } from './replay';
import { KIND_COUNT } from '../kinds/kindLabels';
import type { FrameClassifier } from './userCode';
import { stackLines } from './stackLines';

export type BucketKind = 'before_recording' | 'backward' | 'no_stack' | 'library';

export interface BlockRef {
  element: number;
  bytes: number;
  address: number;
}

export interface LineStat {
  file: string;
  line: number;
  /** Function name of the frame (the first one seen for this line). */
  name: string;
  /** Bytes whose innermost user frame is this line. */
  selfBytes: number;
  selfBlocks: number;
  /** Bytes with this line anywhere on their stack, each block counted once. */
  inclusiveBytes: number;
  inclusiveBlocks: number;
  /** The largest blocks held through this line (self), largest first. */
  largest: BlockRef[];
  /** Self bytes by kind (core/kinds/blockKinds.ts), when the caller gave the kinds. */
  kindBytes?: number[];
}

export interface SiteStat {
  file: string;
  line: number;
  bytes: number;
  blocks: number;
}

export interface Bucket {
  kind: BucketKind;
  bytes: number;
  blocks: number;
  largest: BlockRef[];
  /** backward: the user lines that called backward(), when known. */
  sites?: SiteStat[];
  /** backward: autograd nodes named by C++ frames (stacks='all'). */
  nodes?: { name: string; bytes: number; blocks: number }[];
  /** Bytes by kind, when the caller gave the kinds. */
  kindBytes?: number[];
}

export interface Attribution {
  /** Elements attributed (the live set at the instant). */
  totalBytes: number;
  totalBlocks: number;
  lines: LineStat[];
  buckets: Bucket[];
  /** Bytes by kind of everything attributed, when the caller gave the kinds. */
  kindBytes?: number[];
}

export const BUCKET_LABELS: Record<BucketKind, string> = {
  before_recording: 'allocated before recording',
  backward: 'autograd backward (no Python stack)',
  no_stack: 'no stack recorded',
  library: 'library code only (no user frame)',
};

const LARGEST = 5;

function keepLargest(list: BlockRef[], ref: BlockRef): void {
  if (list.length < LARGEST) {
    list.push(ref);
    list.sort((a, b) => b.bytes - a.bytes);
  } else if (ref.bytes > list[LARGEST - 1]!.bytes) {
    list[LARGEST - 1] = ref;
    list.sort((a, b) => b.bytes - a.bytes);
  }
}

/**
 * Attributes the given live elements to source lines (self = innermost user frame; inclusive =
 * every distinct user line on the stack). Nothing is dropped: blocks without a user frame go to
 * named buckets, and lines + buckets always add up to the total.
 */
export function attribute(
  s: Snapshot,
  e: Elements,
  live: Int32Array,
  cls: FrameClassifier,
  bw: BackwardInfo,
  kinds?: Uint8Array,
): Attribution {
  const tally = (into: { kindBytes?: number[] }, k: number, bytes: number) => {
    if (!kinds) return;
    const by = (into.kindBytes ??= new Array<number>(KIND_COUNT).fill(0));
    by[kinds[k]!] = (by[kinds[k]!] ?? 0) + bytes;
  };
  const totals: { kindBytes?: number[] } = {};
  const lines = new Map<string, LineStat>();
  const buckets = new Map<BucketKind, Bucket>();
  const byFrame = new Map<number, LineStat>();
  const lineOf = (f: number): LineStat => {
    const hit = byFrame.get(f);
    if (hit) return hit;
    const file = s.frames.fileOf(f);
    const line = s.frames.lineOf(f);
    const key = `${line}\u0000${file}`;
    let st = lines.get(key);
    if (!st) {
      st = { file, line, name: s.frames.nameOf(f), selfBytes: 0, selfBlocks: 0, inclusiveBytes: 0, inclusiveBlocks: 0, largest: [] };
      lines.set(key, st);
    }
    byFrame.set(f, st);
    return st;
  };
  const bucket = (kind: BucketKind): Bucket => {
    let b = buckets.get(kind);
    if (!b) {
      b = { kind, bytes: 0, blocks: 0, largest: [] };
      buckets.set(kind, b);
    }
    return b;
  };

  const stackFacts = stackLines(s, cls, lineOf);

  let totalBytes = 0;
  for (let i = 0; i < live.length; i++) {
    const k = live[i]!;
    const bytes = e.size[k]!;
    const ref: BlockRef = { element: k, bytes, address: e.addr[k]! };
    totalBytes += bytes;
    tally(totals, k, bytes);
    const origin = e.origin[k]!;
    let self: LineStat | undefined;
    let python = false;
    if (origin !== Origin.UnmatchedFree) {
      // An unmatched free's stack is where it was freed, not where it was allocated.
      const facts = stackFacts(e.stack[k]!);
      self = facts.self;
      python = facts.python;
      for (const st of facts.lines) {
        st.inclusiveBytes += bytes;
        st.inclusiveBlocks++;
      }
    }
    if (self) {
      self.selfBytes += bytes;
      self.selfBlocks++;
      keepLargest(self.largest, ref);
      tally(self, k, bytes);
      continue;
    }
    const kind: BucketKind =
      origin !== Origin.Trace ? 'before_recording' : bw.site[k] !== NOT_BACKWARD ? 'backward' : python ? 'library' : 'no_stack';
    const b = bucket(kind);
    b.bytes += bytes;
    b.blocks++;
    keepLargest(b.largest, ref);
    tally(b, k, bytes);
    if (kind === 'backward') addBackwardDetail(s, b, bw, k, bytes);
  }

  const sorted = [...lines.values()]
    .filter((l) => l.selfBytes > 0 || l.inclusiveBytes > 0)
    .sort((a, b) => b.selfBytes - a.selfBytes || b.inclusiveBytes - a.inclusiveBytes || a.file.localeCompare(b.file) || a.line - b.line);
  const order: BucketKind[] = ['backward', 'before_recording', 'library', 'no_stack'];
  return {
    totalBytes,
    totalBlocks: live.length,
    lines: sorted,
    buckets: order.filter((k) => buckets.has(k)).map((k) => finishBucket(buckets.get(k)!)),
    ...totals,
  };
}

interface BackwardAcc extends Bucket {
  _sites?: Map<number, SiteStat>;
  _nodes?: Map<string, { name: string; bytes: number; blocks: number }>;
}

function addBackwardDetail(s: Snapshot, b: BackwardAcc, bw: BackwardInfo, k: number, bytes: number): void {
  const site = bw.site[k]!;
  if (site >= 0) {
    b._sites ??= new Map();
    let st = b._sites.get(site);
    if (!st) {
      st = { file: s.frames.fileOf(site), line: s.frames.lineOf(site), bytes: 0, blocks: 0 };
      b._sites.set(site, st);
    }
    st.bytes += bytes;
    st.blocks++;
  }
  const name = bw.node.get(k);
  if (name) {
    b._nodes ??= new Map();
    let n = b._nodes.get(name);
    if (!n) {
      n = { name, bytes: 0, blocks: 0 };
      b._nodes.set(name, n);
    }
    n.bytes += bytes;
    n.blocks++;
  }
}

function finishBucket(b: BackwardAcc): Bucket {
  const out: Bucket = {
    kind: b.kind,
    bytes: b.bytes,
    blocks: b.blocks,
    largest: b.largest,
    ...(b.kindBytes ? { kindBytes: b.kindBytes } : {}),
  };
  if (b._sites) out.sites = [...b._sites.values()].sort((x, y) => y.bytes - x.bytes);
  if (b._nodes) out.nodes = [...b._nodes.values()].sort((x, y) => y.bytes - x.bytes);
  return out;
}
