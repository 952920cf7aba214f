"""A torchrun worker: each rank holds (rank + 1) × 64 MiB on its own GPU (cuda:0 for all when there
are fewer GPUs than workers) for a moment, then exits."""
import os
import time

import torch

rank = int(os.environ["RANK"])
local = int(os.environ["LOCAL_RANK"])
device = local if torch.cuda.device_count() >= int(os.environ["LOCAL_WORLD_SIZE"]) else 0
torch.cuda.set_device(device)
x = torch.empty((rank + 1) * (64 << 20), dtype=torch.uint8, device="cuda")
time.sleep(1.0)
print("rank %d held %d MiB" % (rank, x.numel() >> 20))
