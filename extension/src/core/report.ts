import type { At, DeviceAnalysis } from './analysis/deviceAnalysis';
import { attributeAt } from './analysis/attributeAt';
import { resolveAt } from './analysis/analyze';
import type { Attribution, BucketKind } from './analysis/attribution';
import type { Fragmentation } from './analysis/fragmentation';
import { kindEntries } from './kinds/kindLabels';
import type { KindLabel } from './kinds/kindLabels';
import type { Snapshot } from './snapshot/model';

export interface FragmentationJson {
  segments: number;
  reserved_bytes: number;
  allocated_block_bytes: number;
  active_block_bytes: number;
  private_pool_free_bytes: number;
  reserved_unallocated_bytes: number;
  inactive_split_bytes: number;
  inactive_split_blocks: number;
  pools: {
    pool: string;
    pool_id: [number, number];
    segments: number;
    reserved_bytes: number;
    free_bytes: number;
    largest_free_bytes: number;
  }[];
  holiest_segments: {
    address: number;
    pool: string;
    total_bytes: number;
    allocated_block_bytes: number;
    holes: number;
    free_bytes: number;
    largest_free_bytes: number;
  }[];
}

/** The `headroom analyze --json` document. Byte figures are requested bytes unless the key says otherwise. */
export interface AnalyzeReport {
  device: number;
  devices: number[];
  events: number;
  peak: { requested_bytes: number; allocated_bytes: number; trace_index: number; time_us: number | null };
  end: { requested_bytes: number; allocated_bytes: number };
  start: { requested_bytes: number; blocks: number };
  reserved_bytes: { peak: number; end: number; start: number };
  /** Allocated figures exact (the allocator replay matched every placement: peak_bytes is max_memory_allocated) or estimated, and why. */
  allocated: { exact: true; peak_bytes: number } | { exact: false; why: string };
  at: { kind: 'peak' | 'end' | 'index'; trace_index: number; time_us: number | null; requested_bytes: number };
  lines: {
    file: string;
    line: number;
    function: string;
    self_bytes: number;
    inclusive_bytes: number;
    blocks: number;
    inclusive_blocks: number;
    largest_bytes: number[];
    /** Self bytes by kind (parameters, leaked, library workspaces…), most first. */
    kinds: { kind: KindLabel; bytes: number }[];
  }[];
  lines_total: number;
  /** Everything live at the instant by kind, most first: the same kinds as the timeline's, the summary's and the hovers'. */
  kinds: { kind: KindLabel; bytes: number }[];
  buckets: {
    kind: BucketKind;
    bytes: number;
    blocks: number;
    sites?: { file: string; line: number; bytes: number; blocks: number }[];
    nodes?: { name: string; bytes: number; blocks: number }[];
    kinds: { kind: KindLabel; bytes: number }[];
  }[];
  fragmentation: FragmentationJson;
  ooms: { trace_index: number; time_us: number | null; requested_bytes: number; device_free_bytes: number; file?: string; line?: number }[];
  notes: string[];
  warnings: string[];
}

const ALLOCATED_NOTE =
  'allocated_bytes is an estimate (sizes rounded as the allocator rounds requests); PyTorch also counts unsplit remainders of large blocks, up to 1 MiB each';

function fragmentationJson(f: Fragmentation): FragmentationJson {
  return {
    segments: f.segments,
    reserved_bytes: f.reservedBytes,
    allocated_block_bytes: f.allocatedBytes,
    active_block_bytes: f.activeBytes,
    private_pool_free_bytes: f.privatePoolFreeBytes,
    reserved_unallocated_bytes: f.reservedUnallocatedBytes,
    inactive_split_bytes: f.inactiveSplitBytes,
    inactive_split_blocks: f.inactiveSplitBlocks,
    pools: f.pools.map((p) => ({
      pool: p.pool,
      pool_id: p.poolId,
      segments: p.segments,
      reserved_bytes: p.reservedBytes,
      free_bytes: p.freeBytes,
      largest_free_bytes: p.largestFreeBytes,
    })),
    holiest_segments: f.holiest.map((h) => ({
      address: h.address,
      pool: h.pool,
      total_bytes: h.totalBytes,
      allocated_block_bytes: h.allocatedBytes,
      holes: h.holes,
      free_bytes: h.freeBytes,
      largest_free_bytes: h.largestFreeBytes,
    })),
  };
}

function firstUserLine(s: Snapshot, a: DeviceAnalysis, stack: number): { file?: string; line?: number } {
  const f = a.classifier.firstUser(s.stacks.get(stack));
  return f < 0 ? {} : { file: s.frames.fileOf(f), line: s.frames.lineOf(f) };
}

export function buildReport(s: Snapshot, a: DeviceAnalysis, at: At, top: number): { report: AnalyzeReport; attribution: Attribution } {
  const r = a.replay;
  const instant = resolveAt(a, at);
  const attribution = attributeAt(s, a, instant, true);
  const lines = top > 0 ? attribution.lines.slice(0, top) : attribution.lines;
  const report: AnalyzeReport = {
    device: a.device,
    devices: s.devices,
    events: r.n,
    peak: {
      requested_bytes: r.peak.requestedBytes,
      allocated_bytes: r.peak.allocatedBytes,
      trace_index: r.peak.index,
      time_us: r.peak.timeUs,
    },
    end: { requested_bytes: r.end.requestedBytes, allocated_bytes: r.end.allocatedBytes },
    start: { requested_bytes: r.start.requestedBytes, blocks: r.start.blocks },
    reserved_bytes: { peak: r.reservedPeak.bytes, end: r.reservedEnd, start: r.start.reservedBytes },
    allocated: a.allocated.exact ? { exact: true, peak_bytes: a.allocated.peak } : { exact: false, why: a.allocated.why },
    at: {
      kind: at === 'peak' ? 'peak' : at === 'end' ? 'end' : 'index',
      trace_index: instant.index,
      time_us: instant.timeUs,
      requested_bytes: instant.requestedBytes,
    },
    lines: lines.map((l) => ({
      file: l.file,
      line: l.line,
      function: l.name,
      self_bytes: l.selfBytes,
      inclusive_bytes: l.inclusiveBytes,
      blocks: l.selfBlocks,
      inclusive_blocks: l.inclusiveBlocks,
      largest_bytes: l.largest.map((b) => b.bytes),
      kinds: kindEntries(l.kindBytes),
    })),
    lines_total: attribution.lines.length,
    kinds: kindEntries(attribution.kindBytes),
    buckets: attribution.buckets.map((b) => ({
      kind: b.kind,
      bytes: b.bytes,
      blocks: b.blocks,
      ...(b.sites ? { sites: b.sites } : {}),
      ...(b.nodes ? { nodes: b.nodes } : {}),
      kinds: kindEntries(b.kindBytes),
    })),
    fragmentation: fragmentationJson(a.fragmentation),
    ooms: a.ooms.map((o) => ({
      trace_index: o.index,
      time_us: o.timeUs,
      requested_bytes: o.requestedBytes,
      device_free_bytes: o.deviceFreeBytes,
      ...firstUserLine(s, a, o.stack),
    })),
    notes: [ALLOCATED_NOTE],
    warnings: [...s.warnings, ...r.warnings],
  };
  if (r.start.blocks > 0) {
    report.notes.push(
      `${r.start.blocks} blocks (${r.start.requestedBytes} bytes) were live before the first recorded event: allocated before recording started, or evicted from the trace's ring buffer (max_entries); the peak is the peak within the recorded window`,
    );
  }
  return { report, attribution };
}
