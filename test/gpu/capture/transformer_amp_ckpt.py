"""A small transformer trained with bf16 autocast and activation checkpointing (use_reentrant=False)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

from common import dump, record


def build():
    layer = nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=1024, batch_first=True)
    body = nn.TransformerEncoder(layer, num_layers=4, enable_nested_tensor=False).cuda()
    head = nn.Linear(256, 1000).cuda()
    return body, head


def train(steps=4):
    body, head = build()
    params = list(body.parameters()) + list(head.parameters())
    opt = torch.optim.AdamW(params, lr=1e-4)
    for step in range(steps):
        x = torch.randn(16, 128, 256, device="cuda")
        target = torch.randint(0, 1000, (16 * 128,), device="cuda")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            h = x
            for blk in body.layers:
                h = checkpoint(blk, h, use_reentrant=False)
            logits = head(h)
            loss = F.cross_entropy(logits.flatten(0, 1).float(), target)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return loss.item()


if __name__ == "__main__":
    # On torch 2.11, context='all' (free-site stacks) breaks backward through non-reentrant
    # checkpointing of TransformerEncoderLayer: "run_backward returned NULL without setting an
    # exception" (probe_ckpt.py: off, alloc and state pass; all:python and all:all fail).
    record(context="alloc")
    train()
    dump("transformer_amp_ckpt", {"steps": 4, "amp": "bf16", "checkpoint": "use_reentrant=False"})
