"""Holds a known amount of GPU memory for the NVML checks (test/gpu/nvml.gpu.test.ts).

Prints one JSON line per phase and waits for a line on stdin before the next:
  context: CUDA initialised, one small tensor (the fill kernel loaded): reserved is the allocator's
           first segment, so device use minus reserved is the CUDA context;
  holding: plus `bytes` more in one tensor, written to (the pages are really there).
"""
import json
import os
import sys

import torch

nbytes = int(sys.argv[1])
torch.cuda.set_device(0)
small = torch.ones(1, device="cuda")
torch.cuda.synchronize()
print(json.dumps({"phase": "context", "pid": os.getpid(), "reserved": torch.cuda.memory_reserved(), "allocated": torch.cuda.memory_allocated()}), flush=True)
sys.stdin.readline()
big = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
big.fill_(1)
torch.cuda.synchronize()
print(json.dumps({"phase": "holding", "pid": os.getpid(), "reserved": torch.cuda.memory_reserved(), "allocated": torch.cuda.memory_allocated()}), flush=True)
sys.stdin.readline()
