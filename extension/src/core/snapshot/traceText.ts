import type { PyDict } from '../pickle/values';

/**
 * Frames written as text by newer PyTorch: `fx_original_trace` on a frame in FX-generated code
 * (the model's own stack when the graph was traced) and `forward_frames` on a backward allocation
 * (the forward stack that made the tensor). Both are Python traceback text, outermost first:
 * `  File "/m/model.py", line 42, in forward\n    y = self.fc(x)\n`. The viewer's own
 * `path:line:name` form is accepted too. Strangers write these, so both are bounded.
 */
const TRACEBACK = /File "([^"\n]{1,1024})", line (\d{1,9}), in ([^\n]{1,256})/g;
const PLAIN = /^\s*([^\s:][^:\n]{0,1023}\.py):(\d{1,9}):([^\n]{1,256})$/;

/** At most this many frames come from one text: deeper ones are the outermost and dropped. */
export const MAX_TEXT_FRAMES = 128;
/** Text beyond this many characters is not read. */
export const MAX_TEXT_CHARS = 64 * 1024;

/** Frame dicts, innermost first (the order of a snapshot's `frames`). */
export function framesFromText(parts: readonly unknown[]): PyDict[] {
  const out: PyDict[] = [];
  let budget = MAX_TEXT_CHARS;
  for (const p of parts) {
    if (typeof p !== 'string' || budget <= 0) continue;
    const text = p.length > budget ? p.slice(0, budget) : p;
    budget -= text.length;
    let found = false;
    for (const m of text.matchAll(TRACEBACK)) {
      found = true;
      out.push({ filename: m[1]!, line: Number(m[2]), name: m[3]!.trim() });
    }
    if (!found) {
      for (const line of text.split('\n')) {
        const m = PLAIN.exec(line);
        if (m) out.push({ filename: m[1]!.trim(), line: Number(m[2]), name: m[3]!.trim() });
      }
    }
  }
  // Tracebacks list the outermost call first; keep the innermost frames when there are too many.
  out.reverse();
  return out.length > MAX_TEXT_FRAMES ? out.slice(0, MAX_TEXT_FRAMES) : out;
}

/** A generated frame's original model frames (innermost first), or none. */
export function originalFrames(frame: PyDict): PyDict[] {
  const t = frame.fx_original_trace;
  return typeof t === 'string' && t !== '' ? framesFromText([t]) : [];
}
