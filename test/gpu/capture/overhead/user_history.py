"""A workload that records memory history itself, under headroom run's default (windows): 20
steps (Headroom's first window closes), then its own _record_memory_history, 10 more steps and its
own snapshot. Prints how many trace entries its snapshot holds: the same with and without Headroom
when the agent leaves the workload's own recording alone."""
import pickle
import sys

import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(64, 1024, device="cuda")


def step():
    loss = model(x).square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


for _ in range(20):
    step()
torch.cuda.memory._record_memory_history("all", context="alloc", stacks="python")
for _ in range(10):
    step()
torch.cuda.synchronize()
s = torch.cuda.memory._snapshot()
print("own trace entries", sum(len(t) for t in s["device_traces"]), "allocs", sum(1 for t in s["device_traces"] for e in t if e["action"] == "alloc"))
