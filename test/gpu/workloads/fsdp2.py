"""An FSDP2 training loop for torchrun (issue 39): a small transformer whose blocks and root are each
`fully_shard`ed (torch.distributed.fsdp, PyTorch >= 2.6), NCCL with one GPU per rank, bf16 mixed
precision. Rank r trains on a sequence of 256 x (r + 1) tokens, so the ranks' activations differ while
their parameter and optimizer shards are the same size. Each rank prints PyTorch's own figures:
  RANKFIGS {"rank": r, "requested_peak": ..., "reserved_peak": ...}"""
import json
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

rank = int(os.environ["RANK"])
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl")
torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.attn = nn.MultiheadAttention(d, 8, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.n1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.n2(x))


d, vocab = 512, 8192
model = nn.Sequential(nn.Embedding(vocab, d), *[Block(d) for _ in range(6)], nn.LayerNorm(d), nn.Linear(d, vocab)).cuda()
mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
for m in model:
    if isinstance(m, Block):
        fully_shard(m, mp_policy=mp)
fully_shard(model, mp_policy=mp)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
seq = 256 * (rank + 1)
for step in range(6):
    x = torch.randint(0, vocab, (4, seq), device="cuda")
    loss = nn.functional.cross_entropy(model(x).flatten(0, 1).float(), x.flatten())
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
s = torch.cuda.memory_stats()
print("RANKFIGS " + json.dumps({"rank": rank, "requested_peak": s["requested_bytes.all.peak"], "reserved_peak": s["reserved_bytes.all.peak"]}), flush=True)
dist.barrier()
dist.destroy_process_group()
