import type { BackwardInfo } from './backward';
import type { ExactAllocated } from './exactAllocated';
import type { Fragmentation } from './fragmentation';
import type { OomEvent } from './ooms';
import type { Replay } from './replay';
import type { FrameClassifier } from './userCode';

// The analysis's shape apart from the code that builds it (analyze.ts): most of the engine reads it,
// and analyze.ts imports some of those readers, so the type lives where it imports nothing back.
/** The instant to attribute: the peak, the end of the trace, or a trace index. */
export type At = 'peak' | 'end' | number;

/** One device, indexed: the replay plus what every surface needs to ask it questions. */
export interface DeviceAnalysis {
  device: number;
  replay: Replay;
  /** PyTorch's allocated bytes from the allocator replay where it is exact (core/allocator), else why the figures are estimates; the replay runs on first read (analyze.ts). */
  allocated: ExactAllocated | { exact: false; why: string };
  backward: BackwardInfo;
  classifier: FrameClassifier;
  fragmentation: Fragmentation;
  ooms: OomEvent[];
}
