"""A small MLP classifier, trained for a few steps: the end-to-end tests' workload.

The snapshots in test/fixtures/snapshots/e2e_train_b*.pickle were recorded from this very file on
an H200 (batch 64 and batch 128), so their frames point at these lines.
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


def build(width=4096):
    return nn.Sequential(
        nn.Linear(1024, width),
        nn.GELU(),
        nn.Linear(width, width),
        nn.GELU(),
        nn.Linear(width, 10),
    ).cuda()


def step(model, opt, batch):
    x = torch.randn(batch, 1024, device="cuda")
    y = torch.randint(0, 10, (batch,), device="cuda")
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss.item()


def main(batch):
    torch.manual_seed(0)
    model = build()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(4):
        step(model, opt, batch)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 64)
