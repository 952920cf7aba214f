"""Which recording setting breaks backward with non-reentrant checkpointing on this torch?"""
import sys
import traceback

import torch

import transformer_amp_ckpt as t

mode = sys.argv[2]
if mode != "off":
    ctx, stacks = mode.split(":")
    torch.cuda.memory._record_memory_history(max_entries=100000, context=ctx, stacks=stacks)
try:
    t.train(steps=2)
    print(mode, "OK")
except Exception as e:
    print(mode, "FAIL", type(e).__name__, str(e)[:200])
