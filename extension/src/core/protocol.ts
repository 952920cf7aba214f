import type { AnalyzeReport } from './report';

/**
 * Messages between the extension host and the Headroom webviews. Both sides import these types
 * (the webview imports nothing else from the extension), and both validate what they receive.
 */
export type ToWebview =
  | {
      type: 'summary';
      title: string;
      path: string;
      report: AnalyzeReport;
      doctor?: DoctorJson;
      modules?: ModuleRow[];
      recording?: string;
      ranks?: RanksView;
      breakdowns?: BreakdownView[];
    }
  /** The ranks section again, once the other ranks' snapshots were read (their lines). */
  | { type: 'ranks'; ranks: RanksView }
  /** The what-if section: predictions under other allocator settings, as they are computed. */
  | { type: 'whatif'; whatif: WhatifView }
  /** The batch section: the run predicted at the batch the slider asks (core/scale). */
  | { type: 'scale'; scale: ScaleView }
  | { type: 'error'; message: string };

/**
 * The model code beneath a top line (core/analysis/breakdown.ts): the rows `headroom analyze`
 * prints under it. Everything here is data from the snapshot, shown as text.
 */
export interface BreakdownView {
  /** The line of the report it is beneath. */
  file: string;
  line: number;
  /** Plumbing folded between the line and the rows (`nn.Module call`). */
  folded: string[];
  rows: {
    depth: number;
    bytes: number;
    /** Of the line's self bytes. */
    share: number;
    /** The chain of frames shown on the row, outermost first. */
    names: string[];
    /** The first frame's path (the job's machine's) and line; `where` as rows show it. */
    file: string;
    line: number;
    where: string;
  }[];
}

/**
 * What other PYTORCH_CUDA_ALLOC_CONF settings would do to this run (core/allocator/whatif.ts): the
 * recorded figures and one row per setting, predicted by replaying the run's requests.
 */
export interface WhatifView {
  recorded: { allocatedPeak: number; allocatedExact: boolean; reservedPeak: number; ooms: number };
  /** The limit the predictions assume, in words. */
  limit: string;
  rows: (
    | { allocConf: string; reservedPeak: number; cachedAtPeak: number; allocatedPeak: number; ooms: number[]; avoided: number[] }
    | { allocConf: string; error: string }
  )[];
  /** Settings still being predicted. */
  pending: string[];
  /** What a prediction cannot know. */
  note: string;
}

/** The run at another batch (core/scale/predict.ts), for the summary page's slider. */
export interface ScaleView {
  /** The batch over the recorded one these figures are for; null: nothing predicted yet. */
  scale: number | null;
  requestedPeak: number;
  reservedPeak: number | null;
  ooms: number;
  /** `ooms`: the recorded run's (it stopped at one: what came after is not in the trace). */
  recorded: { requestedPeak: number; reservedPeak: number; ooms: number };
  /** The limit the prediction ran under (the device line), in bytes; null: none known. */
  limitBytes: number | null;
  confidence: string;
  assumptions: string[];
  /** The largest scale predicted to fit under the limit less 5 %, in sixteenths, once asked; 0: none. */
  largest?: number;
  /** Why nothing is predicted here. */
  error?: string;
}

/** A distributed run's ranks beside the summary of one of them (core/run/ranks.ts). */
export interface RanksView {
  /** The rank this summary is of. */
  current: number;
  ranks: {
    rank: number;
    peak: number | null;
    reservedPeak: number | null;
    outsidePytorch: number | null;
    ooms: number;
    snapshot: string | null;
  }[];
  imbalance: number | null;
  /** The lines whose bytes at each rank's peak differ most (bytes in `ranks` order; null: no snapshot read). */
  lines: { file: string; line: number; name: string; bytes: (number | null)[]; spread: number }[];
  /** The same for nn.Module paths (self bytes), for runs recorded with module scopes. */
  modules: { path: string; bytes: (number | null)[]; spread: number }[];
  /** Why some ranks' lines are missing or still coming (being read, too large to read here). */
  linesNote?: string;
  /** The first OOM of any rank, and the others' last sample before it. */
  oom: {
    rank: number;
    timeUs: number;
    others: { rank: number; ageUs: number; allocated: number; reserved: number; outsidePytorch: number | null }[];
  } | null;
}

/** A module's memory at the summary's instant (runs recorded with module scopes), in model order. */
export interface ModuleRow {
  path: string;
  /** Depth in the model (0 for the root), for indenting. */
  depth: number;
  inclusiveBytes: number;
  selfBytes: number;
  forwardBytes: number;
  backwardBytes: number;
}

/** One segment of the allocator at an instant, as runs of allocated / pending / free bytes from its bottom. */
export interface SegmentMapRow {
  pool: string;
  private: boolean;
  expandable: boolean;
  size: number;
  runs: ['allocated' | 'pending' | 'free', number][];
  /** Runs left out past the limit (their bytes are in `size`). */
  more: number;
}

/** The OOM doctor's and the leak detector's verdicts on the snapshot, for the summary page. */
export interface DoctorJson {
  ooms: {
    kind: string;
    why: string;
    /** Per pool at the OOM: free bytes, and the largest free block (what a request could get). */
    pools: { pool: string; private: boolean; reserved: number; free: number; largestFree: number }[];
    /** The request that failed, and the segments then: runs of [state, bytes] from each segment's bottom. */
    request: number;
    segments: { rows: SegmentMapRow[]; total: number };
    remedies: {
      id: string;
      title: string;
      change: string;
      effect: string;
      allocConf?: Record<string, string>;
      capGib?: number;
      line?: { file: string; line: number };
    }[];
  }[];
  /** The verdict's headline, then each leaking line (opened through the path mapping, as the table's). */
  leak: { leaking: boolean; summary: string[]; lines: { file: string; line: number; name: string; keeps: string }[] } | null;
}

export type FromWebview =
  | { type: 'ready' }
  | { type: 'openLine'; file: string; line: number }
  | { type: 'showTimeline' }
  | { type: 'showFlameGraph' }
  /** A breakdown row's frame: by its place in the message's `breakdowns`, never by a path from the page. */
  | { type: 'openBreakdownRow'; breakdown: number; row: number }
  /** A remedy's button: run the workload again with these allocator settings, or under this cap. */
  | { type: 'remedy'; allocConf?: Record<string, string>; capGib?: number }
  /** The what-if form: predict this PYTORCH_CUDA_ALLOC_CONF string (read by the host, never run), under this cap. */
  | { type: 'whatif'; allocConf: string; capGib?: number }
  /** The batch slider: predict the run at this multiple of its batch; or the largest that fits. */
  | { type: 'scale'; scale: number }
  | { type: 'largestScale' };

export function isFromWebview(m: unknown): m is FromWebview {
  if (typeof m !== 'object' || m === null) return false;
  const t = (m as { type?: unknown }).type;
  if (t === 'ready' || t === 'showTimeline' || t === 'showFlameGraph' || t === 'largestScale') return true;
  if (t === 'scale') {
    const x = (m as { scale?: unknown }).scale;
    return typeof x === 'number' && Number.isFinite(x) && x >= 1 / 64 && x <= 64;
  }
  if (t === 'openBreakdownRow') {
    const o = m as { breakdown?: unknown; row?: unknown };
    return [o.breakdown, o.row].every((i) => typeof i === 'number' && Number.isSafeInteger(i) && i >= 0);
  }
  if (t === 'remedy') {
    const { allocConf: c, capGib: g } = m as { allocConf?: unknown; capGib?: unknown };
    const conf =
      c === undefined ||
      (typeof c === 'object' &&
        c !== null &&
        Object.entries(c).every(([k, v]) => /^[A-Za-z_]+$/.test(k) && typeof v === 'string' && /^[\w.]+$/.test(v)));
    const cap = g === undefined || (typeof g === 'number' && Number.isFinite(g) && g > 0 && g <= 65536);
    return conf && cap && (c !== undefined || g !== undefined);
  }
  if (t === 'whatif') {
    const { allocConf: c, capGib: g } = m as { allocConf?: unknown; capGib?: unknown };
    return (
      typeof c === 'string' && c.length <= 400 && (g === undefined || (typeof g === 'number' && Number.isFinite(g) && g > 0 && g <= 65536))
    );
  }
  if (t === 'openLine') {
    const o = m as { file?: unknown; line?: unknown };
    return typeof o.file === 'string' && typeof o.line === 'number';
  }
  return false;
}
