"""A DDP training loop for torchrun (issue 23): an MLP wrapped in DistributedDataParallel, NCCL with
one GPU per rank (gloo when the ranks share one GPU: NCCL refuses two ranks on one device). Rank r
trains on a batch of 64 × (r + 1), so the ranks' peaks differ (the imbalance a skewed sharding
makes). With `oom`, rank 1 caps itself at 2 GiB and then asks for more: an OOM on one rank while the
other waits in a collective. Each rank prints PyTorch's own figures as one JSON line:
  RANKFIGS {"rank": r, "requested_peak": …, "reserved_peak": …}"""
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

rank = int(os.environ["RANK"])
world = int(os.environ["WORLD_SIZE"])
local = int(os.environ["LOCAL_RANK"])
own_gpu = torch.cuda.device_count() >= int(os.environ["LOCAL_WORLD_SIZE"])
device = local if own_gpu else 0
torch.cuda.set_device(device)
dist.init_process_group("nccl" if own_gpu else "gloo")
torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 4096), nn.GELU(), nn.Linear(4096, 10)).cuda(), device_ids=[device] if own_gpu else None)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
batch = 64 * (rank + 1)
for step in range(8):
    x = torch.randn(batch, 1024, device="cuda")
    y = torch.randint(0, 10, (batch,), device="cuda")
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
if "oom" in sys.argv and rank == 1:
    torch.cuda.set_per_process_memory_fraction(min(1.0, (2 << 30) / torch.cuda.get_device_properties(device).total_memory), device)
    try:
        torch.empty(4 << 30, dtype=torch.uint8, device="cuda")
    finally:
        s = torch.cuda.memory_stats()
        print("RANKFIGS " + json.dumps({"rank": rank, "requested_peak": s["requested_bytes.all.peak"], "reserved_peak": s["reserved_bytes.all.peak"]}), flush=True)
s = torch.cuda.memory_stats()
print("RANKFIGS " + json.dumps({"rank": rank, "requested_peak": s["requested_bytes.all.peak"], "reserved_peak": s["reserved_bytes.all.peak"]}), flush=True)
dist.barrier()
dist.destroy_process_group()
