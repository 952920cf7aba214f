"""What torch.compile leaves to map generated frames back to source (torch 2.11, H100): the
snapshot's FX augmentation, Inductor's loaded modules, and the comments around allocating lines.

Found (2026-11-24): augment_with_fx_traces adds nothing to frames in Inductor's code, and
PyCodeCache.linemaps maps every generated line the snapshot names (1,822 of 1,822 frame uses) to
its FX node's source stack. torch already uses those maps when it symbolizes a snapshot's
tracebacks: the frame after `c….py:1684 call` is the model's own line. Headroom has nothing to add.
Usage: python test/gpu/capture/frameworks/probe_fx.py (repo root)"""
import collections
import sys

sys.path.insert(0, "test/gpu/capture/frameworks")
import torch

import nanogpt

torch.manual_seed(0)
torch.cuda.memory._record_memory_history(max_entries=200000)
m = nanogpt.GPT().cuda()
opt = torch.optim.AdamW(m.parameters(), lr=3e-4)
run = torch.compile(m)
for _ in range(3):
    x = torch.randint(0, 8192, (16, 257), device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = run(x[:, :-1], x[:, 1:])
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
s = torch.cuda.memory._snapshot(augment_with_fx_traces=True)
print("frame keys", collections.Counter(tuple(sorted(f)) for e in s["device_traces"][0] for f in e.get("frames", [])))
lines = collections.Counter((f["filename"], f["line"]) for e in s["device_traces"][0] for f in e.get("frames", []) if "torchinductor" in f["filename"])
from torch._inductor import codecache
print("PyCodeCache attrs", [a for a in dir(codecache.PyCodeCache) if not a.startswith("__")])
mods = getattr(codecache.PyCodeCache, "modules", None) or getattr(codecache.PyCodeCache, "cache", {})
print("loaded", type(mods), len(mods))
for (fn, ln), n in sorted(lines.items(), key=lambda kv: -kv[1])[:4]:
    src = open(fn).read().split("\n")
    print("=====", fn, ln, n)
    for i in range(max(0, ln - 14), min(len(src), ln + 2)):
        print("%5d %s" % (i + 1, src[i][:160]))

# Inductor's own line maps: generated line -> the source frames of its FX nodes.
import inspect
import json

print(inspect.getsource(codecache.PyCodeCache.stack_frames_for_code)[:1500])
print("linemaps", len(codecache.PyCodeCache.linemaps), [(p, len(v[0]) if v else 0) for p, v in list(codecache.PyCodeCache.linemaps.items())[:3]])
for (fn, ln), n in sorted(lines.items(), key=lambda kv: -kv[1])[:3]:
    print(fn, ln, json.dumps(codecache.PyCodeCache.stack_frames_for_code(fn, ln))[:600])
mapped = sum(n for (fn, ln), n in lines.items() if codecache.PyCodeCache.stack_frames_for_code(fn, ln))
print("generated frame uses mapped:", mapped, "of", sum(lines.values()))
