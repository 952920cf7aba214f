"""Shared helpers for the GPU fixture captures: PyTorch's own figures at dump time."""
import json
import os
import sys

import torch

STAT_KEYS = {
    "max_memory_allocated": "allocated_bytes.all.peak",
    "memory_allocated": "allocated_bytes.all.current",
    "memory_reserved": "reserved_bytes.all.current",
    "max_memory_reserved": "reserved_bytes.all.peak",
    "requested_bytes_peak": "requested_bytes.all.peak",
    "requested_bytes_current": "requested_bytes.all.current",
    "active_bytes_current": "active_bytes.all.current",
    "inactive_split_bytes": "inactive_split_bytes.all.current",
    "num_alloc_retries": "num_alloc_retries",
    "num_ooms": "num_ooms",
}


def out_dir():
    return sys.argv[1]


def record(**kw):
    args = dict(max_entries=1_000_000, stacks="python", context="all")
    args.update(kw)
    torch.cuda.memory._record_memory_history(**args)


def dump(name, extra=None, memviz=True):
    """Dump the snapshot and, right after, PyTorch's own figures (the dump allocates nothing on the GPU)."""
    path = os.path.join(out_dir(), name + ".pickle")
    torch.cuda.memory._dump_snapshot(path)
    stats = torch.cuda.memory_stats()
    truth = {"torch_version": torch.__version__, "device_name": torch.cuda.get_device_name(0)}
    for k, v in STAT_KEYS.items():
        truth[k] = stats.get(v)
    truth["allocator_backend"] = torch.cuda.get_allocator_backend()
    if extra:
        truth.update(extra)
    if memviz:
        # PyTorch's own per-stack view of the blocks live at dump time (folded stacks, bytes = requested).
        import pickle
        from torch.cuda import _memory_viz

        with open(path, "rb") as f:
            snap = pickle.load(f)
        truth["memory_viz_folded"] = _memory_viz.memory(snap, format_flamegraph=lambda s: s)
        truth["memory_viz_segsum"] = _memory_viz.segsum(snap)
    with open(os.path.join(out_dir(), name + ".truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
    print(f"{name}: peak={truth['requested_bytes_peak']} cur={truth['requested_bytes_current']}", flush=True)
    return truth
