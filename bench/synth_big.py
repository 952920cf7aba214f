"""Builds a large snapshot from a real one when no big capture is at hand: the trace of a real
training run is repeated (addresses shifted per copy, so copies never collide, times shifted by
the trace's span, so time stays monotonic, and frames lists written anew per copy) until it has at
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
    # A real capture writes a new frames list for most entries (of frame dicts already written):
    # each copy gets new lists, shared within the copy as in the source.
    lists = {}
    for e in base:
        e2 = dict(e)
        if isinstance(e.get("frames"), list):
            e2["frames"] = lists.setdefault(id(e["frames"]), list(e["frames"]))
        e2["addr"] = e["addr"] + shift
        if "time_us" in e2:
            e2["time_us"] = e["time_us"] + k * span
        out.append(e2)
    k += 1
snap["device_traces"][0] = out
with open(dst, "wb") as f:
    pickle.dump(snap, f, protocol=4)
