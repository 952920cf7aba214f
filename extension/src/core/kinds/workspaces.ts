import type { DeviceAnalysis } from '../analysis/deviceAnalysis';
import { NOT_BACKWARD } from '../analysis/backward';
import { Origin } from '../analysis/replay';
import { FrameKind } from '../analysis/userCode';
import type { Snapshot } from '../snapshot/model';
import { backwardPhases, Category } from '../timeline/categories';

/**
 * The workspaces cuBLAS and cuBLASLt keep: PyTorch allocates one through the caching allocator per
 * (cuBLAS handle, stream), and a handle per thread (ATen's CublasHandlePool.cpp), the first time a
 * matmul runs there, and frees it only at exit. The forward's first matmul line gets one, the
 * autograd thread's first backward matmul another (no Python stack).
 * With C++ frames the stack says so. With Python stacks alone, from PyTorch's defaults:
 * CUBLAS_WORKSPACE_CONFIG ":4096:8" (Hopper and later; deterministic mode anywhere) is 32 MiB,
 * ":4096:2:16:8" (before Hopper) 8 MiB + 128 KiB, ":16:8" 128 KiB; cuBLASLt's CUBLASLT_WORKSPACE_SIZE
 * is 1 MiB by default, allocated at a handle's first cuBLASLt call (with AMP, often a later line),
 * so never more of them than of cuBLAS's. A candidate lives to the end of the trace, or at least
 * through the last backward pass (Lightning's teardown frees them with
 * torch._C._cuda_clearCublasWorkspaces()), has no role of its own (parameter, gradient, optimizer
 * state), and is the first of its size at its line. C++ frames, when recorded, decide alone.
 */
const CUBLAS_SIZES = new Set([32 << 20, (8 << 20) + (128 << 10), 128 << 10]);
const LT_SIZE = 1 << 20;
const CPP_WORKSPACE =
  /getCurrentCUDABlasHandle|getCUDABlasLtWorkspace|setWorkspaceForHandle|getNewWorkspace|CublasHandlePool|getChosenWorkspaceSize/;

/** cppFrames false: as if the stacks had no C++ frames (to measure the rule that runs without them). */
export function libraryWorkspaces(s: Snapshot, a: DeviceAnalysis, base: Uint8Array, cppFrames = true): number[] {
  const e = a.replay.elements;
  const n = a.replay.n;
  const phases = backwardPhases(s, a);
  const trained = phases.end.length ? phases.end[phases.end.length - 1]! : n;
  const out: number[] = [];
  const seen = new Set<string>();
  let cublas = 0;
  let lt = 0;
  // A stack's facts once per distinct stack (blocks share stacks; a hostile file shares one huge one).
  const perStack = new Map<number, { cpp: boolean; named: boolean; user: number }>();
  const facts = (id: number) => {
    let got = perStack.get(id);
    if (got) return got;
    const frames = s.stacks.get(id);
    let cpp = false;
    let named = false;
    for (const f of frames) {
      // C++ frames (stacks 'all') have qualified names; runpy's "<frozen …>" frames are not C++.
      if (!cppFrames || a.classifier.kind(f) !== FrameKind.Cpp || !s.frames.nameOf(f).includes('::')) continue;
      cpp = true;
      if (CPP_WORKSPACE.test(s.frames.nameOf(f))) named = true;
    }
    got = { cpp, named, user: a.classifier.firstUser(frames) };
    perStack.set(id, got);
    return got;
  };
  for (let k = 0; k < e.count; k++) {
    if (e.origin[k] !== Origin.Trace) continue;
    const { cpp, named, user } = facts(e.stack[k]!);
    if (cpp) {
      if (named) out.push(k);
      continue;
    }
    const kept = e.free[k]! >= n || (e.alloc[k]! < trained && e.free[k]! >= trained);
    if (!kept || base[k] !== Category.Other) continue;
    const site =
      user >= 0 ? `u${s.frames.lineOf(user)}\u0000${s.frames.fileOf(user)}` : a.backward.site[k] !== NOT_BACKWARD ? 'backward' : '';
    if (!site) continue;
    const size = e.size[k]!;
    const key = `${size}\u0000${site}`;
    if (seen.has(key)) continue;
    if (CUBLAS_SIZES.has(size)) cublas++;
    else if (size === LT_SIZE && lt < cublas) lt++;
    else continue;
    seen.add(key);
    out.push(k);
  }
  return out;
}
