"""Rewrites a real 2.11 snapshot into the layouts older (or newer) producers wrote, per the format
document's version table, so the normalizer can be tested on each. Usage: downgrade.py IN OUT KIND"""
import copy
import pickle
import sys

src, dst, kind = sys.argv[1], sys.argv[2], sys.argv[3]
with open(src, "rb") as f:
    snap = pickle.load(f)
protocol = 4

if kind == "torch2.0":
    # No time_us / compile_context / user_metadata; blocks without address and frames; no settings.
    for t in snap["device_traces"]:
        for e in t:
            for k in ("time_us", "compile_context", "user_metadata"):
                e.pop(k, None)
    for s in snap["segments"]:
        s.pop("is_expandable", None)
        s.pop("frames", None)
        for b in s["blocks"]:
            b.pop("address", None)
            b.pop("frames", None)
    snap.pop("allocator_settings", None)
    snap.pop("external_annotations", None)
elif kind == "torch1.13":
    # A bare list of segments; blocks carry history[0] with the allocation's real size and frames.
    segs = []
    for s in snap["segments"]:
        s = copy.deepcopy(s)
        for k in ("requested_size", "segment_pool_id", "is_expandable", "frames"):
            s.pop(k, None)
        blocks = []
        for b in s["blocks"]:
            nb = {"size": b["size"], "state": b["state"]}
            if b["state"] != "inactive":
                nb["history"] = [{"addr": b["address"], "real_size": b["requested_size"], "frames": b.get("frames", [])}]
            blocks.append(nb)
        s["blocks"] = blocks
        segs.append(s)
    snap = segs
elif kind == "segments-list":
    snap = snap["segments"]  # torch.cuda.memory_snapshot() / MemPool.snapshot()
elif kind == "free-pairs":
    # Old nightlies: one 'free' action where 2.11 writes free_requested + free_completed.
    for d, t in enumerate(snap["device_traces"]):
        out = []
        for e in t:
            if e["action"] == "free_completed" and out and out[-1]["action"] == "free_requested" and out[-1]["addr"] == e["addr"]:
                out[-1]["action"] = "free"
                continue
            out.append(e)
        snap["device_traces"][d] = out
elif kind == "future":
    # Post-2.11 main: pool_id / internal_metadata on entries, 'annotate' actions, host_segments.
    for t in snap["device_traces"]:
        out = []
        for e in t:
            e["pool_id"] = (0, 0)
            e["internal_metadata"] = "x"
            out.append(e)
            out.append({"action": "annotate", "addr": 0, "size": 0, "stream": 0, "time_us": e.get("time_us", 0), "user_metadata": "step"})
        t[:] = out
    for s in snap["segments"]:
        s["some_new_key"] = {"nested": [1, 2]}
    snap["host_segments"] = []
    snap["host_traces"] = []
elif kind == "node-annotations":
    # What global annotations add (record_function scopes of the autograd engine): one
    # `autograd::engine::evaluate_function: <Node>` scope around each frameless allocation.
    ann = snap.setdefault("external_annotations", [])
    for e in snap["device_traces"][0]:
        if e["action"] == "alloc" and not e.get("frames"):
            name = "autograd::engine::evaluate_function: AddmmBackward0"
            ann.append({"stage": "START", "name": name, "device": 0, "time_us": e["time_us"]})
            ann.append({"stage": "END", "name": name, "device": 0, "time_us": e["time_us"]})
elif kind == "protocol5":
    protocol = 5
elif kind == "protocol2":
    protocol = 2
else:
    raise SystemExit("unknown kind " + kind)

with open(dst, "wb") as f:
    pickle.dump(snap, f, protocol=protocol)
