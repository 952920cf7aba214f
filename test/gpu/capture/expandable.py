"""Expandable segments: segment_map/segment_unmap, with an empty_cache in the middle. Run with
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (the orchestrator sets it)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from common import dump, record


def step(model, opt, batch):
    x = torch.randn(batch, 1024, device="cuda")
    y = torch.randint(0, 10, (batch,), device="cuda")
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


def main():
    model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(3):
        step(model, opt, 2048)
    scratch = [torch.empty(64 << 20, dtype=torch.uint8, device="cuda") for _ in range(4)]
    del scratch
    torch.cuda.empty_cache()
    for _ in range(3):
        step(model, opt, 512)


if __name__ == "__main__":
    record()
    main()
    dump("expandable_train", {"expandable_segments": True})
