"""Moves a snapshot to "another machine": every frame path starting with OLD gets NEW instead.
Usage: reprefix.py IN OUT OLD NEW"""
import pickle
import sys

src, dst, old, new = sys.argv[1:5]
with open(src, "rb") as f:
    snap = pickle.load(f)
seen = set()


def fix(frames):
    for fr in frames or []:
        if id(fr) in seen:
            continue
        seen.add(id(fr))
        if fr.get("filename", "").startswith(old):
            fr["filename"] = new + fr["filename"][len(old):]


for t in snap.get("device_traces", []):
    for e in t:
        fix(e.get("frames"))
for s in snap.get("segments", []):
    fix(s.get("frames"))
    for b in s.get("blocks", []):
        fix(b.get("frames"))
with open(dst, "wb") as f:
    pickle.dump(snap, f, protocol=4)
