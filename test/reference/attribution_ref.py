"""An independent attribution of a snapshot, written from the format document alone (stdlib only):
replay the trace (release at free_completed, seed pre-window blocks from unmatched frees and from
the final state), take the instant (peak / end / index), and sum requested bytes per source line:
self = innermost user frame, inclusive = each distinct user line on the stack once per block.

Usage: attribution_ref.py SNAPSHOT DEVICE AT   ->  JSON on stdout."""
import json
import pickle
import re
import sys

LIB = re.compile(r"/(site-packages|dist-packages)/|/lib(64)?/python\d[^/]*/")


def is_user(fr):
    fn = fr.get("filename", "")
    return fn.endswith(".py") and fr.get("line", 0) > 0 and not LIB.search(fn.replace("\\", "/"))


def is_python(fr):
    return fr.get("filename", "").endswith(".py") and fr.get("line", 0) > 0


def main():
    path, device, at = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(path, "rb") as f:
        snap = pickle.load(f)
    if isinstance(snap, list):
        snap = {"segments": snap, "device_traces": []}
    traces = snap.get("device_traces", [])
    trace = traces[device] if device < len(traces) else []
    n = len(trace)
    # Each element: [alloc_index, free_index, size, frames, pre_window_free_site]
    live, elems = {}, []
    for i, e in enumerate(trace):
        a = e["action"]
        if a == "alloc":
            if e["addr"] in live:
                live[e["addr"]][1] = i
            el = [i, n, e["size"], e.get("frames") or [], False]
            live[e["addr"]] = el
            elems.append(el)
        elif a in ("free_completed", "free"):
            el = live.pop(e["addr"], None)
            if el is not None:
                el[1] = i
            else:
                elems.append([-1, i, e["size"], e.get("frames") or [], True])
    for seg in snap.get("segments", []):
        if seg.get("device", 0) != device:
            continue
        for b in seg["blocks"]:
            if b["state"] not in ("active_allocated", "active_pending_free"):
                continue
            el = live.get(b["address"])
            if el is not None:
                if not el[3]:
                    el[3] = b.get("frames") or []
            else:
                elems.append([-1, n, b["requested_size"], b.get("frames") or [], False])
    totals = [0] * n
    base = sum(el[2] for el in elems if el[0] < 0)
    delta = [0] * (n + 1)
    for el in elems:
        if el[0] >= 0:
            delta[el[0]] += el[2]
        if el[1] < n:
            delta[el[1]] -= el[2]
    run = base
    for i in range(n):
        run += delta[i]
        totals[i] = run
    if at == "peak":
        idx, best = -1, base
        for i, t in enumerate(totals):
            if t > best:
                idx, best = i, t
    elif at == "end":
        idx = n - 1
    else:
        idx = int(at)
    lines, no_user, no_user_blocks, total = {}, 0, 0, 0
    for el in elems:
        if not (el[0] <= idx < el[1]):
            continue
        total += el[2]
        frames = [] if el[4] else el[3]
        users = [fr for fr in frames if is_user(fr)]
        if not users:
            no_user += el[2]
            no_user_blocks += 1
            continue
        key = (users[0]["filename"], users[0]["line"])
        st = lines.setdefault(key, {"self": 0, "inclusive": 0, "blocks": 0})
        st["self"] += el[2]
        st["blocks"] += 1
        seen = set()
        for fr in users:
            k = (fr["filename"], fr["line"])
            if k in seen:
                continue
            seen.add(k)
            lines.setdefault(k, {"self": 0, "inclusive": 0, "blocks": 0})["inclusive"] += el[2]
    out = {
        "index": idx,
        "total": total,
        "no_user_frame_bytes": no_user,
        "no_user_frame_blocks": no_user_blocks,
        "lines": [{"file": k[0], "line": k[1], **v} for k, v in lines.items()],
    }
    print(json.dumps(out))


main()
