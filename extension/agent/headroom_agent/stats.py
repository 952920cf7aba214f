"""The caching allocator's figures, read cheaply: torch.cuda.memory_stats() flattens ~170 nested
figures in Python (137 us a call on an H100, torch 2.11); the nested dict it flattens comes straight
from C in 19 us (test/gpu/capture/overhead/part_costs.py). The sampler reads every 100 ms and the
closed window after backward(), on the workload's time."""


def read(torch, device, keys):
    """{key: int} for memory_stats()-style keys ("allocated_bytes.all.peak", "num_ooms") of one
    device (an index); a key torch does not have reads 0."""
    raw = getattr(torch._C, "_cuda_memoryStats", None)
    if raw is not None:
        try:
            nested = raw(device)
        except Exception:
            nested = None
        if isinstance(nested, dict):
            return {k: _dig(nested, k) for k in keys}
    flat = torch.cuda.memory_stats(device)
    return {k: int(flat.get(k, 0)) for k in keys}


def _dig(nested, key):
    v = nested
    for part in key.split("."):
        if not isinstance(v, dict):
            return 0
        v = v.get(part, 0)
    return int(v) if isinstance(v, int) else 0
