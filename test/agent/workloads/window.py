"""A training-like loop (under a torch with nn: Debian's CPU torch) on fakecuda's device for the recording windows: memory rises for 3 steps,
stays flat for 12, then rises by half (a longer batch) and stays flat again; then the model switches to eval() and back. argv: SAMPLE_WAIT_S."""
import sys
import time

import fakecuda
import torch

fakecuda.install()
wait = float(sys.argv[1])
layer = torch.nn.Linear(2, 2)  # a module call each step: module scopes (HEADROOM_MODULES) stamp it
fakecuda.use(64 << 20)
for i in range(15):
    if i < 3:
        fakecuda.use(16 << 20)
    fakecuda.mark("step %d" % i)
    layer(torch.ones(2))
    fakecuda.step()
fakecuda.use(64 << 20)
time.sleep(wait)  # the sampler sees the new peak
for i in range(15, 27):
    fakecuda.mark("step %d" % i)
    layer(torch.ones(2))
    fakecuda.step()
# A phase switch: model.train() again and again (as HF Trainer does each step) is no switch; eval() is.
m = torch.nn.Linear(2, 2)
m.train()
m.train()
m.eval()
m.train()
print("done")
