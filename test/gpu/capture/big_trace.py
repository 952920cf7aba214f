"""A long run for the load benchmark: at least 350k trace events, context='all', stacks='python'."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from common import dump, record


def train(target_events):
    model = nn.Sequential(*[m for _ in range(6) for m in (nn.Linear(256, 256), nn.ReLU())], nn.Linear(256, 10)).cuda()
    opt = torch.optim.Adam(model.parameters())
    steps = 0
    while True:
        for _ in range(200):
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
    record(max_entries=2_000_000)
    steps, n = train(350_000)
    dump("big_trace", {"steps": steps, "events": n}, memviz=False)
