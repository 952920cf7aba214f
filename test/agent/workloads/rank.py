"""One rank of a distributed job on fakecuda's device (as torchrun starts it: RANK, WORLD_SIZE,
LOCAL_RANK in the environment): it allocates 64 MiB plus 32 MiB per rank, runs a few steps and
waits for the sampler. argv: SAMPLE_WAIT_S."""
import os
import sys
import time

import fakecuda

fakecuda.install()
rank = int(os.environ["RANK"])
fakecuda.use((64 + 32 * rank) << 20)
for _ in range(3):
    fakecuda.step()
time.sleep(float(sys.argv[1]))
print("rank %d done" % rank)
