// Newer torch (after 2.11) writes frames as traceback text: `fx_original_trace` on frames in FX
// and Inductor generated code, and `forward_frames` on allocations made in backward. 2.11 cannot
// record them, so these snapshots are built in the shape torch's own viewer reads
// (torch/utils/viz/process_alloc_data.js), with the text made by Python's traceback module.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { attributeAt } from '../../extension/src/core/analysis/attributeAt';
import { parseSnapshot } from '../../extension/src/core/snapshot/load';
import { MAX_TEXT_FRAMES } from '../../extension/src/core/snapshot/traceText';
import { pythonBytes } from './helpers';

const BUILD = `
import pickle, sys, traceback
def fr(f, l, n): return {"filename": f, "line": l, "name": n}
def text(*fs): return traceback.format_list([traceback.FrameSummary(f, l, n, line="x = y") for f, l, n in fs])
train = ("/w/train.py", 30, "<module>")
gen = fr("/tmp/torchinductor_me/ab/cabc.py", 1255, "call")
gen["fx_node_op"] = "call_function"
gen["fx_original_trace"] = "".join(text(train, ("/w/model.py", 20, "forward")))
trace = [
  # forward, eager: on the model's line
  {"action": "alloc", "addr": 0x1000, "size": 1000, "stream": 0, "time_us": 1, "frames": [fr("/w/model.py", 10, "forward"), fr(*train)]},
  # compiled: the generated frame carries the line it was traced from
  {"action": "alloc", "addr": 0x2000, "size": 3000, "stream": 0, "time_us": 2, "frames": [gen, fr(*train)]},
  # backward (no Python frames on autograd's thread): forward_frames names the forward line
  {"action": "alloc", "addr": 0x3000, "size": 5000, "stream": 0, "time_us": 3, "frames": [],
   "forward_frames": text(train, ("/w/model.py", 12, "forward"))},
  # backward without forward_frames stays in the backward bucket
  {"action": "alloc", "addr": 0x4000, "size": 7000, "stream": 0, "time_us": 4, "frames": []},
  # hostile text: ignored, never a frame
  {"action": "alloc", "addr": 0x5000, "size": 11, "stream": 0, "time_us": 5, "frames": [], "forward_frames": ["x" * 100000, 7, None]},
]
deep = text(*[("/w/deep.py", i + 1, "f") for i in range(1000)])
trace.append({"action": "alloc", "addr": 0x6000, "size": 13, "stream": 0, "time_us": 6, "frames": [], "forward_frames": deep})
sys.stdout.buffer.write(pickle.dumps({"segments": [], "device_traces": [trace]}, protocol=4))
`;

describe('frames written as text by newer torch', () => {
  const s = parseSnapshot(pythonBytes(BUILD));
  const a = analyzeDevice(s, 0);
  const at = attributeAt(s, a, a.replay.peak);
  const self = (file: string, line: number): number => at.lines.find((l) => l.file === file && l.line === line)?.selfBytes ?? 0;

  it('a generated frame is credited to the model line of fx_original_trace; the generated file is no line', () => {
    assert.equal(self('/w/model.py', 20), 3000);
    for (const l of at.lines) assert.doesNotMatch(l.file, /torchinductor_/);
  });

  it('a backward allocation with forward_frames is credited to its forward line; one without stays in backward', () => {
    assert.equal(self('/w/model.py', 12), 5000);
    assert.equal(self('/w/model.py', 10), 1000);
    const inclusive = at.lines.find((l) => l.file === '/w/train.py' && l.line === 30)?.inclusiveBytes;
    assert.equal(inclusive, 1000 + 3000 + 5000);
    const bw = at.buckets.find((b) => b.kind === 'backward' || b.kind === 'no_stack');
    assert.ok(bw && bw.bytes >= 7000, JSON.stringify(at.buckets));
  });

  it('hostile text becomes no frame, and a very deep forward stack keeps only its innermost frames', () => {
    for (const l of at.lines) assert.doesNotMatch(l.file, /^x+$/);
    assert.equal(self('/w/deep.py', 1000), 13, 'the innermost frame of the deep stack');
    const deep = at.lines.filter((l) => l.file === '/w/deep.py');
    assert.equal(deep.length, MAX_TEXT_FRAMES);
  });
});
