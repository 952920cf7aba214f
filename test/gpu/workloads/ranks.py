"""A torchrun worker: each rank holds (rank + 1) × 64 MiB on cuda:0 for a moment, then exits."""
import os
import time

import torch

rank = int(os.environ["RANK"])
x = torch.empty((rank + 1) * (64 << 20), dtype=torch.uint8, device="cuda:0")
time.sleep(1.0)
print("rank %d held %d MiB" % (rank, x.numel() >> 20))
