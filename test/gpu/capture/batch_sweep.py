"""The batch-size remedy against reality: an MLP trained with Adam at growing batches (2 steps each)
until one runs out of memory on the whole device. Truth: the peak (max_memory_allocated) of each
batch that ran, and the batch that failed, whose attempt is recorded (batch_oom.pickle)."""
import gc

import torch

from common import dump, record

if __name__ == "__main__":
    torch.manual_seed(0)
    torch.backends.cuda.matmul.allow_tf32 = True  # speed only: the memory is the same
    width, layers, grow = 8192, 12, 16384
    model = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.GELU()) for _ in range(layers)]).cuda()
    opt = torch.optim.Adam(model.parameters())

    def step(batch):
        x = torch.randn(batch, width, device="cuda")
        loss = model(x).square().mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    peaks = {}
    batch = grow
    while True:
        torch.cuda.reset_peak_memory_stats()
        # The first batch that cannot run fails in its first step: that attempt is recorded.
        record()
        try:
            for _ in range(2):
                step(batch)
        except torch.OutOfMemoryError as e:
            message = str(e)
            break
        torch.cuda.memory._record_memory_history(enabled=None)
        peaks[batch] = torch.cuda.max_memory_allocated()
        print(batch, peaks[batch], flush=True)
        batch += grow
    gc.collect()
    dump("batch_oom", {"peaks": peaks, "oom_batch": batch, "width": width, "layers": layers, "message": message}, memviz=False)
