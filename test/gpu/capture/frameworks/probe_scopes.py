"""Checks module scopes on a real GPU: the agent's hooks never change a result or add a graph
break, what they cost per step, and PyTorch's own module tracker (MemTracker) on the same model.
Usage: python probe_scopes.py AGENT_DIR OUT_JSON"""
import json
import statistics
import sys
import time

sys.path.insert(0, sys.argv[1])
import torch
import torch.nn as nn

import nanogpt
from headroom_agent import modules

out = {"torch": torch.__version__, "metadata_api": sorted(n for n in dir(torch._C) if "etadata" in n)}


def train(model, steps, compiled=False, seed=0):
    torch.manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    run = torch.compile(model) if compiled else model
    losses, times = [], []
    for _ in range(steps):
        x = torch.randint(0, 8192, (16, 257), device="cuda")
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = run(x[:, :-1], x[:, 1:])
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        losses.append(loss.item())
    return losses, times


def fresh():
    torch.manual_seed(0)
    return nanogpt.GPT().cuda()


def breaks():
    from torch._dynamo.utils import counters
    return {"graph_break": sum(counters["graph_break"].values()), "unique_graphs": counters["stats"]["unique_graphs"]}


# Compiled, before any hook: the baseline graph count and losses.
torch._dynamo.reset()
plain_c, _ = train(fresh(), 4, compiled=True)
out["compiled_plain"] = breaks()
plain_e, _ = train(fresh(), 4)
torch.cuda.memory._record_memory_history(max_entries=100000)
scopes = modules.install(torch, lambda *a: None)
torch._dynamo.reset()
from torch._dynamo.utils import counters
counters.clear()
hooked_c, _ = train(fresh(), 4, compiled=True)
out["compiled_hooked"] = breaks()
hooked_e, _ = train(fresh(), 4)
out["same_losses"] = {"eager": plain_e == hooked_e, "compiled": plain_c == hooked_c, "eager_values": [plain_e, hooked_e]}
snap = torch.cuda.memory._snapshot()
metas = {}
for e in snap["device_traces"][0]:
    m = e.get("user_metadata", "")
    metas[m] = metas.get(m, 0) + 1
out["metadata_top"] = sorted(metas.items(), key=lambda kv: -kv[1])[:40]
torch.cuda.memory._record_memory_history(enabled=None)

# Cost: a launch-bound model (many small layers), with and without the hooks, interleaved.
class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Sequential(nn.Linear(64, 64), nn.ReLU()) for _ in range(24))

    def forward(self, x):
        for l in self.layers:
            x = l(x)
        return x.sum()

def tiny_steps(n):
    torch.manual_seed(0)
    m = Tiny().cuda()
    opt = torch.optim.SGD(m.parameters(), lr=1e-3)
    x = torch.randn(32, 64, device="cuda")
    for _ in range(20):
        m(x).backward(); opt.step(); opt.zero_grad()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        m(x).backward(); opt.step(); opt.zero_grad()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / n

hooks = torch.nn.modules.module
saved = (dict(hooks._global_forward_pre_hooks), dict(hooks._global_forward_hooks), dict(getattr(hooks, "_global_forward_hooks_always_called", {})))
def hooks_on(on):
    for d, s in zip((hooks._global_forward_pre_hooks, hooks._global_forward_hooks), saved[:2]):
        d.clear()
        if on:
            d.update(s)
rows = []
for rep in range(6):
    for on in (False, True):
        hooks_on(on)
        rows.append((on, tiny_steps(200)))
hooks_on(True)
off = [t for on, t in rows if not on]
onn = [t for on, t in rows if on]
out["tiny_step_s"] = {"off_median": statistics.median(off), "on_median": statistics.median(onn), "off_min": min(off), "on_min": min(onn),
                      "ratio_median": statistics.median(onn) / statistics.median(off), "ratio_min": min(onn) / min(off)}

# PyTorch's own module tracker on one eager step of the same model, for comparison.
try:
    hooks_on(False)
    from torch.distributed._tools.mem_tracker import MemTracker
    torch.manual_seed(0)
    m = nanogpt.GPT().cuda()
    opt = torch.optim.AdamW(m.parameters(), lr=3e-4)
    mt = MemTracker()
    mt.track_external(m, opt)
    with mt:
        for _ in range(2):
            x = torch.randint(0, 8192, (16, 257), device="cuda")
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = m(x[:, :-1], x[:, 1:])
            loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    peak = mt.get_tracker_snapshot("peak")
    fqn = lambda k: getattr(mt.memory_tracking.get(k), "mod_fqn", None) if isinstance(k, nn.Module) else None
    out["memtracker_peak"] = {fqn(k) or type(k).__name__: {str(d): {str(c): int(b) for c, b in v.items()} for d, v in devs.items()} for k, devs in list(peak.items())[:80]}
except Exception as e:
    out["memtracker_error"] = "%s: %s" % (type(e).__name__, e)

json.dump(out, open(sys.argv[2], "w"), indent=1, default=str)
print(json.dumps({k: v for k, v in out.items() if k not in ("metadata_top", "memtracker_peak")}, indent=1, default=str))
