"""The agent's per-call costs on the workload's side, timed in-process (no noise from whole runs):
the sampler's sample() and what it reads, the closed window's peak read, and a backward() through
the agent's wrapper against the bare one. Prints one line per part, in microseconds per call.
Needs the agent on PYTHONPATH (HEADROOM_AGENT_DIR or this repository's)."""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("HEADROOM_AGENT_DIR") or os.path.join(HERE, "..", "..", "..", "..", "extension", "agent"))

import torch  # noqa: E402

from headroom_agent import backward as hb  # noqa: E402
from headroom_agent.config import Config  # noqa: E402
from headroom_agent.sampler import Sampler  # noqa: E402
from headroom_agent.window import peak_allocated  # noqa: E402


def per_call(fn, n):
    fn()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n * 1e6


def main():
    x = torch.ones(1024, device="cuda")
    s = Sampler(torch, Config({}), lambda s: None, lambda s: None, lambda *a: None)
    rows = [
        ("sampler sample()", per_call(lambda: s.sample(0), 300)),
        ("  torch.cuda.memory_stats()", per_call(lambda: torch.cuda.memory_stats(0), 300)),
        ("  torch._C._cuda_memoryStats()", per_call(lambda: torch._C._cuda_memoryStats(0), 300)),
        ("  torch.cuda.device_memory_used()", per_call(lambda: torch.cuda.device_memory_used(0), 300)),
        ("  torch.cuda.mem_get_info()", per_call(lambda: torch.cuda.mem_get_info(0), 300)),
        ("window's peak read", per_call(lambda: peak_allocated(torch), 1000)),
    ]
    w = torch.ones(16, device="cuda", requires_grad=True)

    def step():
        (w * 2).sum().backward()

    bare = per_call(step, 3000)
    hb.wrap(torch, lambda ev: None, lambda: 1, lambda: None)
    level1 = per_call(step, 3000)
    rows += [("backward() bare", bare), ("backward() wrapped, recorder off (level 1)", level1), ("  wrapper's own", level1 - bare)]
    for name, us in rows:
        print("PART %-45s %9.1f us" % (name, us))
    del x


if __name__ == "__main__":
    main()
