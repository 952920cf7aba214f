"""A long run for the load benchmark: at least HEADROOM_BIG_EVENTS (default 350k) trace events,
context='all', stacks='python'. Saved as big_trace.pickle, or big_trace_<N>.pickle for other N."""
import os
import torch
import torch.nn as nn
import torch.nn.functional as F

from common import dump, record


def train(target_events):
    model = nn.Sequential(*[m for _ in range(6) for m in (nn.Linear(256, 256), nn.ReLU())], nn.Linear(256, 10)).cuda()
    opt = torch.optim.Adam(model.parameters())
    steps = 0
    while True:
        for _ in range(1000):
            x = torch.randn(64, 256, device="cuda")
            y = torch.randint(0, 10, (64,), device="cuda")
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            steps += 1
        n = len(torch.cuda.memory._snapshot()["device_traces"][0])
        if n >= target_events:
            return steps, n


if __name__ == "__main__":
    target = int(os.environ.get("HEADROOM_BIG_EVENTS", "350000"))
    record(max_entries=max(2_000_000, target * 2))
    steps, n = train(target)
    dump("big_trace" if target == 350_000 else f"big_trace_{target}", {"steps": steps, "events": n}, memviz=False)
