"""The optimizer-step hook's cost (headroom_agent/params.py), per step, on N parameters with Adam's
state, on CUDA where there is a GPU, else on the CPU (the hook reads addresses, never data):
unchanged addresses (one "seen" line), fresh gradients (a "map" line of N gradients), and between
recording windows (nothing to do). Prints one JSON object. Not a test: figures for the docs.
Usage: python params_cost.py AGENT_DIR [N]"""
import json
import sys
import tempfile
import time
import types

import hooks_polyfill
import torch

hooks_polyfill.install()
sys.path.insert(0, sys.argv[1])
from headroom_agent import params as hp  # noqa: E402
from headroom_agent.config import Config  # noqa: E402
from headroom_agent.runfolder import RunFolder  # noqa: E402

N = int(sys.argv[2]) if len(sys.argv) > 2 else 300
folder = RunFolder()
folder.claim([tempfile.mkdtemp()])
recorder = types.SimpleNamespace(enabled=True, pid=None, history=True, seq=0)
DEV = "cuda" if torch.cuda.is_available() else "cpu"
agent = types.SimpleNamespace(recorder=recorder, folder=folder, log=lambda *a: None, config=Config({"HEADROOM_PARAMS_CPU": "1" if DEV == "cpu" else "0"}))
import os  # noqa: E402

recorder.pid = os.getpid()
p = hp.Params(torch, agent)
assert p.install()
hp.BUDGET = 1.0  # measure, never switch off

model = torch.nn.Sequential(*[torch.nn.Linear(32, 32) for _ in range(N // 2)]).to(DEV)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
params = list(model.parameters())
for q in params:
    q.grad = torch.zeros_like(q)
opt.step()  # Adam's state, and the first (names + full map) lines


def per_call(fn, n=300):
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return round(times[len(times) // 2] * 1e6, 1)


def fresh_grads():
    for q in params:
        q.grad = torch.zeros_like(q)


seen = per_call(lambda: p._after_step(opt, (), {}))
fresh = []
for _ in range(100):
    fresh_grads()
    t0 = time.perf_counter()
    p._after_step(opt, (), {})
    fresh.append(time.perf_counter() - t0)
fresh.sort()
recorder.history = False
idle = per_call(lambda: p._after_step(opt, (), {}))
recorder.history = True
def adam_step():
    opt.step()
    if DEV == "cuda":
        torch.cuda.synchronize()


step = per_call(adam_step, 50)  # Adam's own step (foreach on CUDA), the hook included
print(json.dumps({"torch": torch.__version__, "device": DEV, "params": len(params), "seen_us": seen, "fresh_grads_us": round(fresh[len(fresh) // 2] * 1e6, 1), "between_windows_us": idle, "adam_cpu_step_us": step, "file_bytes": p.written}))
