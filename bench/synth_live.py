"""Builds a snapshot with N blocks live at its end from a real one, for timing what is built per
live block (the flame graph's call tree): the real trace's allocations, with their real stacks, are
repeated without their frees (each given an address of its own, times shifted by the trace's span
per copy so time stays monotonic) until N are live. A stand-in for a model holding a
million tensors, not a capture.
Usage: synth_live.py IN OUT N"""
import gzip
import pickle
import sys

src, dst, target = sys.argv[1], sys.argv[2], int(sys.argv[3])
with (gzip.open if src.endswith(".gz") else open)(src, "rb") as f:
    snap = pickle.load(f)
trace = max(snap["device_traces"], key=len)
base = [e for e in trace if e["action"] == "alloc"]
times = [e["time_us"] for e in base if "time_us" in e]
span = (max(times) - min(times) + 1) if times else 0
out, k = [], 0
while len(out) < target:
    for e in base[: target - len(out)]:
        e2 = dict(e)
        # The block's offset in its 4 GiB window, in a window of its own (under 2**53: exact as a double).
        e2["addr"] = ((len(out) + 1) << 32) | (e["addr"] & 0xFFFFFFFF)
        if "time_us" in e2:
            e2["time_us"] = e["time_us"] + k * span
        out.append(e2)
    k += 1
snap["device_traces"] = [out if t is trace else t for t in snap["device_traces"]]
with open(dst, "wb") as f:
    pickle.dump(snap, f, protocol=4)
