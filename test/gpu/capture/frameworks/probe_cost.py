"""What module scopes cost: a launch-bound loop of small modules and the nanoGPT loop, with scopes
off, on (kept whatever they cost) and auto (they remove themselves past 1 %), interleaved.
Usage: python probe_cost.py AGENT_DIR OUT_JSON"""
import json
import statistics
import sys
import time

sys.path.insert(0, sys.argv[1])
import torch
import torch.nn as nn

import nanogpt
from headroom_agent import modules


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Sequential(nn.Linear(64, 64), nn.ReLU()) for _ in range(24))

    def forward(self, x, y):
        for layer in self.layers:
            x = layer(x)
        return x.sum()


def steps(model, batch, n, warm=10):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    def one():
        x, y = batch()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x, y)
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    for _ in range(warm):
        one()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        one()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / n


def tiny():
    torch.manual_seed(0)
    x = torch.randn(32, 64, device="cuda")
    return Tiny().cuda(), lambda: (x, None), 300


def gpt():
    torch.manual_seed(0)
    return nanogpt.GPT().cuda(), lambda: (lambda t: (t[:, :-1], t[:, 1:]))(torch.randint(0, 8192, (16, 257), device="cuda")), 20


torch.cuda.memory._record_memory_history(max_entries=200000)
out = {}
logs = []
for name, make in (("tiny", tiny), ("nanogpt", gpt)):
    rows = {"off": [], "on": [], "auto": []}
    for rep in range(5):
        for mode in ("off", "on", "auto"):
            s = modules.install(torch, lambda lvl, msg: logs.append(msg), mode) if mode != "off" else None
            m, batch, n = make()
            rows[mode].append(steps(m, batch, n))
            if s is not None:
                if s.handles:
                    s.uninstall("probe")
                else:
                    rows.setdefault("auto_removed", []).append(s.calls)
    out[name] = {k: {"median_s": statistics.median(v), "min_s": min(v), "ratio_median": statistics.median(v) / statistics.median(rows["off"]), "ratio_min": min(v) / min(rows["off"])} if k != "auto_removed" else v for k, v in rows.items()}
out["logs"] = [l for l in logs if l != "probe"][:5]
json.dump(out, open(sys.argv[2], "w"), indent=1)
print(json.dumps(out, indent=1))
