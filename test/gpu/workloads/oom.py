"""Allocates 256 MiB blocks under a small cap until the allocator raises OutOfMemoryError, uncaught."""
import torch

blocks = []
while True:
    blocks.append(torch.empty(256 << 20, dtype=torch.uint8, device="cuda"))
