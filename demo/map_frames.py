"""Maps a captured snapshot onto the demo workspace: every frame whose file is the demo script (at
whatever path it had on the GPU host) is pointed at the script's path here. Nothing else changes.
Usage: map_frames.py IN OUT SCRIPT_BASENAME LOCAL_PATH"""
import pickle
import sys

src, dst, name, local = sys.argv[1:5]
with open(src, "rb") as f:
    snap = pickle.load(f)
seen = {}


def fix(frames):
    for fr in frames or []:
        if id(fr) in seen:
            continue
        seen[id(fr)] = True
        fn = fr.get("filename", "")
        if fn.replace("\\", "/").split("/")[-1] == name:
            fr["filename"] = local


for t in snap.get("device_traces", []):
    for e in t:
        fix(e.get("frames"))
for s in snap.get("segments", []):
    fix(s.get("frames"))
    for b in s.get("blocks", []):
        fix(b.get("frames"))
with open(dst, "wb") as f:
    pickle.dump(snap, f, protocol=4)
