// What a CUDA OOM message says, apart from the readers (formats.ts, ../oomMessage.ts) that import each other's parts.

/** The formats PyTorch has printed for a CUDA OOM (docs/oom-formats.md), and how each is read. */
export type OomFormat =
  | 'thc'
  | 'cached'
  | 'reserved'
  | 'reserved-hint'
  | 'modern'
  | 'async'
  | 'absurd'
  | 'cuda-error'
  | 'cublas'
  | 'fragment';

export interface OomProcess {
  /** null = "this process" (the sentence that includes non-PyTorch memory). */
  pid: number | null;
  usedBytes: number;
}

export interface OomMessage {
  format: OomFormat;
  /** Offset of the message in the text it was found in, and of its end. */
  offset: number;
  end: number;
  /** The message as it was given (wrapping, prefixes and all). */
  text: string;
  /** A figure the format prints is missing: the message was cut short. */
  truncated: boolean;
  device?: number;
  /** "Tried to allocate": the rounded segment request, not the tensor size. */
  triedBytes?: number;
  totalBytes?: number;
  freeBytes?: number;
  processes: OomProcess[];
  /** The per-process cap ("… allowed;"), when a memory fraction is set; cudaMallocAsync's "PyTorch limit". */
  allowedBytes?: number;
  /** "allocated by PyTorch" (modern: includes private-pool free bytes) / "already allocated" (legacy). */
  allocatedBytes?: number;
  privatePoolBytes?: number;
  /** "reserved by PyTorch but unallocated" (modern); the ≤1.4 "cached" means the same. */
  reservedUnallocatedBytes?: number;
  /** "reserved in total by PyTorch" (1.5–2.0). */
  reservedBytes?: number;
  /** cudaMallocAsync: "Requested". */
  requestedBytes?: number;
}
