import type { Snapshot } from '../snapshot/model';
import type { DeviceAnalysis } from './deviceAnalysis';
import { attribute } from './attribution';
import type { LineStat } from './attribution';
import { liveAt } from './replay';
import { exactGlob, FrameClassifier, FrameKind, isTorchOrGenerated } from './userCode';

/**
 * Library files that may hold model code: Python files in the snapshot's frames that are not the
 * user's, not torch's and not generated (transformers' modeling_gpt2.py, a Lightning module).
 */
export function libraryFiles(s: Snapshot, a: DeviceAnalysis): string[] {
  const out = new Set<string>();
  for (let f = 0; f < s.frames.size; f++) {
    if (a.classifier.kind(f) !== FrameKind.Library) continue;
    const file = s.frames.fileOf(f);
    if (file.endsWith('.py') && !isTorchOrGenerated(file)) out.add(file);
  }
  return [...out];
}

/**
 * The lines of `files` holding memory at trace index `index`, as if they were the user's code:
 * the attribution the editor shows on a library file opened from a stack or by Go to Definition.
 * Self bytes stop at the innermost frame in the user's code or in `files`.
 */
export function libraryLines(s: Snapshot, a: DeviceAnalysis, index: number, files: readonly string[]): LineStat[] {
  if (!files.length) return [];
  const cls = new FrameClassifier(s.frames, { include: files.map(exactGlob), exclude: [] });
  const wanted = new Set(files);
  return attribute(s, a.replay.elements, liveAt(a.replay.elements, index), cls, a.backward).lines.filter((l) => wanted.has(l.file));
}
