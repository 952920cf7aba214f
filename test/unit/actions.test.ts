// Trace actions are snapshot text: a name that happens to be one of Object.prototype's members
// (`constructor`, `toString`, `__proto__`…) is an unknown action, never an allocation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeDevice } from '../../extension/src/core/analysis/analyze';
import { Action, actionCode, actionName } from '../../extension/src/core/snapshot/actions';
import { parseSnapshot } from '../../extension/src/core/snapshot/load';
import { pythonBytes } from './helpers';

const PROTOTYPE_NAMES = [...Object.getOwnPropertyNames(Object.prototype), 'hasOwnProperty', '__proto__'];

describe('trace actions', () => {
  it('the known actions map to their codes and back', () => {
    for (const name of ['alloc', 'free_requested', 'free_completed', 'segment_alloc', 'segment_free', 'oom', 'snapshot', 'free'])
      assert.equal(actionName(actionCode(name)), name);
  });

  it("Object.prototype's names are other actions", () => {
    for (const name of PROTOTYPE_NAMES) assert.equal(actionCode(name), Action.Other, name);
    assert.equal(actionName(Number.NaN), 'other');
  });

  it('a 1 GiB "constructor" or "toString" event is not the peak: only the real allocation counts', () => {
    const s = parseSnapshot(
      pythonBytes(`
import pickle, sys
fr = [{"filename": "/w/train.py", "line": 3, "name": "<module>"}]
trace = [
  {"action": "constructor", "addr": 0x100000, "size": 1 << 30, "stream": 0, "time_us": 1, "frames": fr},
  {"action": "toString", "addr": 0x200000, "size": 1 << 30, "stream": 0, "time_us": 2, "frames": fr},
  {"action": "alloc", "addr": 0x300000, "size": 4096, "stream": 0, "time_us": 3, "frames": fr},
]
sys.stdout.buffer.write(pickle.dumps({"segments": [], "device_traces": [trace]}, protocol=4))`),
    );
    const a = analyzeDevice(s, 0);
    assert.equal(a.replay.peak.requestedBytes, 4096);
  });
});
