"""An MLP trained long enough that a small max_entries ring buffer overflows many times."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from common import dump, record

MAX_ENTRIES = 3000


def train(steps=60):
    model = nn.Sequential(nn.Linear(1024, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 10)).cuda()
    opt = torch.optim.Adam(model.parameters())
    for _ in range(steps):
        x = torch.randn(256, 1024, device="cuda")
        y = torch.randint(0, 10, (256,), device="cuda")
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    record(max_entries=MAX_ENTRIES)
    train()
    dump("ring_overflow", {"max_entries": MAX_ENTRIES, "steps": 60})
