/**
 * The patterns of PyTorch's OOM messages (docs/oom-formats.md), over the flattened text (flatten.ts:
 * no whitespace). Each message's fields are nested optional groups, so a message cut short still
 * yields the figures before the cut.
 */
export const S = String.raw`\d+(?:\.\d+)?(?:bytes|KiB|MiB|GiB)`;

// Readable patterns: spaces are dropped, since the flattened text has none.
export const flat = (s: string) => s.replace(/ /g, '');
/** `a(?:b(?:c)?)?`: each piece only after the one before it. */
export const chain = (pieces: string[]): string => pieces.reduceRight((tail, p) => (tail ? `${p}(?:${tail})?` : p), '');
const HEAD = String.raw`(?<head>(?:CUDA|HIP) out of memory \.)? Tried to allocate (?<tried>${S})`;
const WHO = String.raw`(?:Process \d+|Including non-PyTorch memory, this process)`;
export const PROC = new RegExp(
  flat(String.raw`(?:Process (?<pid>\d+)|Including non-PyTorch memory, this process) has (?<used>${S})`),
  'gi',
);
export const HINT =
  String.raw`(?<hint>` +
  chain([
    String.raw`If reserved (?:but unallocated )?memory is (?:>> allocated memory|large) try setting`,
    String.raw`[\w=:.]{1,60} to avoid fragmentation \.`,
    String.raw`See documentation for Memory Management`,
    String.raw`(?:and PYTORCH_CUDA_ALLOC_CONF|\( https?://[^)]{1,200} \))`,
  ]) +
  ')?';

// A message pasted from its second sentence on ("GPU 0 has a total capacity…", "(GPU 0; …") is
// still one: the head is optional where the next piece names the GPU.
export const MODERN =
  String.raw`(?:${HEAD} \.)?` +
  chain([
    // Some builds print no index ("GPU  has a total capacity").
    String.raw`GPU (?<gpu>\d*) has a total capaci?ty of (?<total>${S})`,
    String.raw`of which (?<free>${S}) is free \.`,
    // The last sentence may be cut after its figure ("Process 1079173 has 6.04 GiB").
    String.raw`(?<procs>(?:${WHO} has ${S} memory in use \.)*(?:${WHO} has ${S}(?:memory(?:in use)?)?)?)`,
    String.raw`(?:(?<allowed>${S}) allowed ;)? Of the allocated memory (?<alloc>${S}) is allocated by PyTorch ,`,
    String.raw`(?:with (?<private>${S}) allocated in private pools \( e\.g\., CUDA Graphs \),)? and (?<unalloc>${S}) is reserved by PyTorch but unallocated \.?`,
    HINT,
  ]);
export const LEGACY =
  String.raw`(?:${HEAD})?` +
  chain([
    String.raw`\( GPU (?<gpu>\d+) ; (?<total>${S}) total capacity ;`,
    String.raw`(?<alloc>${S}) already allocated ;`,
    String.raw`(?<free>${S}) free ;`,
    // The last words may be cut ("18.33 GiB reserved in total by"): the figure is whole, its meaning clear.
    String.raw`(?:(?<allowed>${S}) allowed ;)? (?<reserved>${S}) (?<kind>reserved(?: in(?: total(?: by(?: PyTorch)?)?)?)?|cached) \)?`,
    HINT,
  ]);
export const ASYNC = chain([
  String.raw`Allocation on device (?<gpu>\d+) would exceed allowed memory \. \( out of memory \)`,
  String.raw`Currently allocated : (?<alloc>${S})`,
  String.raw`Requested : (?<req>${S})`,
  String.raw`Device limit : (?<total>${S})`,
  String.raw`Free \( according to CUDA \) : (?<free>${S})`,
  String.raw`(?:PyTorch limit \( set by user-supplied memory fraction \) : (?<allowed>${S}))?`,
]);
