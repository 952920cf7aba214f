"""Builds a large trace the caching allocator can be replayed on, from a real recording that began
with the process (every segment is in its trace): the whole trace, segment events included, is
repeated with addresses shifted per copy, each copy ending by freeing what it still holds (blocks,
then segments), so copies never collide and the allocator's state stays the size of one run's.
A stand-in for timing the allocator replay, not a capture. Usage: synth_alloc.py IN OUT N"""
import gzip
import pickle
import sys

src, dst, target = sys.argv[1], sys.argv[2], int(sys.argv[3])
with (gzip.open if src.endswith(".gz") else open)(src, "rb") as f:
    snap = pickle.load(f)
base = snap["device_traces"][0]
times = [e["time_us"] for e in base if "time_us" in e]
span = (max(times) - min(times) + 1) if times else 0
out, k = [], 0
while len(out) < target:
    shift = (k + 1) << 40
    live, segs = {}, {}
    last = None
    for e in base:
        e2 = dict(e)
        e2["addr"] = e["addr"] + shift
        if "time_us" in e2:
            e2["time_us"] = e["time_us"] + k * span
            last = e2["time_us"]
        a = e["action"]
        if a == "alloc":
            live[e2["addr"]] = e2
        elif a in ("free_completed", "free"):
            live.pop(e2["addr"], None)
        elif a == "segment_alloc":
            segs[e2["addr"]] = e2
        elif a == "segment_free":
            segs.pop(e2["addr"], None)
        out.append(e2)
    for addr, e in reversed(list(live.items())):
        for action in ("free_requested", "free_completed"):
            out.append(dict(e, action=action, time_us=last))
    for addr, e in segs.items():
        out.append(dict(e, action="segment_free", time_us=last))
    k += 1
snap["device_traces"][0] = out
snap["segments"] = []
with open(dst, "wb") as f:
    pickle.dump(snap, f, protocol=4)
