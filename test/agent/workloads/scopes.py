"""Module scopes on real torch autograd (CPU): the agent's hooks with torch's metadata setter
replaced by a recorder (CPU torch has no allocator to stamp). Prints one JSON object.
Usage: python scopes.py AGENT_DIR"""
import json
import sys
import threading

sys.path.insert(0, sys.argv[1])
import torch
import torch.nn as nn

calls = []
torch.cuda.memory._set_memory_metadata = lambda m: calls.append((threading.current_thread().name, m))

from headroom_agent import modules  # noqa: E402


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.act = nn.ReLU()

    def forward(self, x):
        return x + self.act(self.fc(x))


class Outer(nn.Module):
    """Like a LightningModule: its own forward never runs, a step calls its children."""

    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(Block(), Block())
        self.head = nn.Linear(8, 1)


def step(model, x):
    loss = model.head(model.blocks(x)).pow(2).mean()
    loss.backward()
    return loss.item(), [p.grad.clone() for p in model.parameters()]


torch.manual_seed(0)
model = Outer()
x = torch.randn(4, 8)
plain = step(model, x)
model.zero_grad()
scopes = modules.install(torch, lambda level, msg: None, "on")
torch.cuda.memory._set_memory_metadata("step=1")
mark = len(calls)
scoped = step(model, x)
after = calls[mark:]
print(json.dumps({
    "same_loss": plain[0] == scoped[0],
    "same_grads": all(torch.equal(a, b) for a, b in zip(plain[1], scoped[1])),
    "leaf_hooks": sum(len(p._backward_hooks or {}) for p in model.parameters()),
    "calls": [m for _, m in after],
    "threads": sorted({t for t, _ in after}),
}))
