"""A small nested LM with a tied weight, trained a few Adam steps on the CPU, under the agent when
HEADROOM_AGENT=1 (test/agent/params.test.ts). torch is imported first and given torch 2.x's hooks
(hooks_polyfill.py), then the agent is installed as boot.install does when torch is already
imported. Prints what the workload would print; the truth, from the script's own side (each
tensor's storage address and bytes right after each step), goes to TRUTH.
Usage: python params_train.py AGENT_DIR TRUTH_JSON"""
import json
import sys
import time

import fakecuda
import hooks_polyfill
import torch
import torch.nn as nn
import torch.nn.functional as F

hooks_polyfill.install()
fakecuda.install()
sys.path.insert(0, sys.argv[1])
from headroom_agent import boot  # noqa: E402

boot.install("test")  # None unless HEADROOM_AGENT=1

V, D = 64, 16


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(D, 3 * D)
        self.c_proj = nn.Linear(D, D)

    def forward(self, x):
        return self.c_proj(self.c_attn(x)[..., :D])


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(D)
        self.attn = Attn()
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(x)


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(wte=nn.Embedding(V, D), h=nn.ModuleList([Block() for _ in range(3)]), ln_f=nn.LayerNorm(D)))
        self.lm_head = nn.Linear(D, V, bias=False)
        self.lm_head.weight = self.transformer.wte.weight  # tied: named_parameters() keeps the first name

    def forward(self, idx):
        x = self.transformer.wte(idx)
        for b in self.transformer.h:
            x = b(x)
        return self.lm_head(self.transformer.ln_f(x))


def storage(t):
    us = getattr(t, "untyped_storage", None)
    s = us() if us is not None else t.storage().untyped()
    return [s.data_ptr(), s.nbytes()]


now = lambda: time.time_ns() // 1000  # noqa: E731
torch.manual_seed(0)
model = LM()
fakecuda.use(8 << 20)  # the first "CUDA" use: the agent starts recording
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
truth = {"names": [n for n, _ in model.named_parameters()], "steps": []}
for step in range(5):
    idx = torch.randint(0, V, (4, 12))
    loss = F.cross_entropy(model(idx).view(-1, V), idx.view(-1))
    loss.backward()
    t0 = now()
    opt.step()
    t1 = now()
    tensors = []
    for name, p in model.named_parameters():
        tensors.append({"name": name, "kind": "parameter", "key": None, "at": storage(p)})
        tensors.append({"name": name, "kind": "gradient", "key": None, "at": storage(p.grad)})
        for k, v in opt.state[p].items():
            tensors.append({"name": name, "kind": "optimizer_state", "key": k, "at": storage(v)})
    truth["steps"].append({"t0": t0, "t1": t1, "tensors": tensors})
    # Two steps with fresh gradients, then gradients zeroed in place: the same addresses again.
    opt.zero_grad(set_to_none=step < 2)
    print("step %d loss %.6f" % (step, loss.item()))
print("weights %.6f" % sum(p.detach().abs().sum().item() for p in model.parameters()))
with open(sys.argv[2], "w") as f:
    json.dump(truth, f)
