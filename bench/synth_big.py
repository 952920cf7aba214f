"""Builds a large snapshot from a real one when no big capture is at hand: the trace of a real
training run is repeated (addresses shifted per copy, so copies never collide, and times shifted
by the trace's span, so time stays monotonic) until it has at
least N events. It is a stand-in for timing the loader, not a capture; the real big capture is
made with test/gpu/capture/capture_all.py OUT big_trace on a GPU host.
Usage: synth_big.py IN OUT N"""
import pickle
import sys

src, dst, target = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(src, "rb") as f:
    snap = pickle.load(f)
base = [e for e in snap["device_traces"][0] if e["action"] in ("alloc", "free_requested", "free_completed")]
times = [e["time_us"] for e in base if "time_us" in e]
span = (max(times) - min(times) + 1) if times else 0
out, k = [], 0
while len(out) < target:
    shift = (k + 1) << 40
    for e in base:
        e2 = dict(e)
        e2["addr"] = e["addr"] + shift
        if "time_us" in e2:
            e2["time_us"] = e["time_us"] + k * span
        out.append(e2)
    k += 1
snap["device_traces"][0] = out
with open(dst, "wb") as f:
    pickle.dump(snap, f, protocol=4)
