"""A fake CUDA device under whichever torch is imported (the stand-in in test/agent/fake_torch or
Debian's CPU torch): the allocator's figures, the lazy initialization that arms Headroom's agent,
the history recorder and a snapshot dump that HEADROOM_TEST_DUMP_S makes slow on purpose. A script
behaves the same with or without the agent. Tests only."""
import os
import pickle
import threading
import time
import types

import torch

_lock = threading.Lock()
_mem = {"allocated": 0, "peak": 0, "reserved": 0, "reserved_peak": 0}
TOTAL = 80 << 30


def _stats(device=None):
    with _lock:
        m = dict(_mem)
    return {
        "allocated_bytes.all.current": m["allocated"],
        "allocated_bytes.all.peak": m["peak"],
        "active_bytes.all.current": m["allocated"],
        "requested_bytes.all.current": m["allocated"],
        "requested_bytes.all.peak": m["peak"],
        "reserved_bytes.all.current": m["reserved"],
        "reserved_bytes.all.peak": m["reserved_peak"],
        "inactive_split_bytes.all.current": 0,
        "num_alloc_retries": 0,
        "num_ooms": 0,
    }


def _nested(device=None):
    """torch._C._cuda_memoryStats: the nested dict memory_stats() flattens."""
    out = {}
    for key, value in _stats(device).items():
        parts = key.split(".")
        d = out
        for p in parts[:-1]:
            d = d.setdefault(p, {})
        d[parts[-1]] = value
    return out


def _dump(path):
    marks = os.environ.get("HEADROOM_TEST_MARKS")
    if marks:  # lets a test tell that a dump had begun when the process died
        open(os.path.join(marks, "dumping-%d" % os.getpid()), "w").close()
    time.sleep(float(os.environ.get("HEADROOM_TEST_DUMP_S") or 0))
    with _lock:
        size = _mem["reserved"]
    seg = {"device": 0, "address": 1 << 32, "total_size": size, "allocated_size": _mem["allocated"], "requested_size": _mem["allocated"], "stream": 0, "segment_type": "large", "blocks": []}
    with open(path, "wb") as f:
        pickle.dump({"segments": [seg] if size else [], "device_traces": [[]], "fake_pid": os.getpid()}, f, protocol=4)


def _history(enabled="all", *args, **kwargs):
    """The recorder's switch; HEADROOM_TEST_HISTORY names a file that lists each call's `enabled`."""
    log = os.environ.get("HEADROOM_TEST_HISTORY")
    if log:
        with open(log, "a") as f:
            f.write("%s\n" % (enabled,))


def _metadata(text):
    """torch >= 2.10's stamp on the next trace entries; HEADROOM_TEST_METADATA names a file that lists each stamp."""
    log = os.environ.get("HEADROOM_TEST_METADATA")
    if log:
        with open(log, "a") as f:
            f.write("meta %r\n" % (text,))


def mark(text):
    """A line of the workload's own in the metadata log (which step is running)."""
    log = os.environ.get("HEADROOM_TEST_METADATA")
    if log:
        with open(log, "a") as f:
            f.write("mark %s\n" % (text,))


def install():
    cuda = torch.cuda
    cuda.is_available = lambda: True
    cuda.device_count = lambda: 1
    cuda.current_device = lambda: 0
    cuda.memory_stats = _stats
    torch._C._cuda_memoryStats = _nested
    cuda.memory_reserved = lambda device=None: _mem["reserved"]
    cuda.mem_get_info = lambda device=None: (TOTAL - _mem["reserved"], TOTAL)
    cuda.get_device_properties = lambda device=None: types.SimpleNamespace(name="Fake GPU", total_memory=TOTAL)
    cuda.get_allocator_backend = lambda: "native"
    cuda.set_per_process_memory_fraction = lambda fraction, device=None: None
    cuda.memory._record_memory_history = _history
    cuda.memory._dump_snapshot = _dump
    cuda.memory._set_memory_metadata = _metadata


def use(nbytes):
    """The first call initializes 'CUDA' as torch.cuda._lazy_init does (running the queued lazy
    calls); then nbytes more are allocated, in 2 MiB segments."""
    cuda = torch.cuda
    if not cuda._initialized:
        cuda._initialized = True
        calls = list(cuda._queued_calls)
        del cuda._queued_calls[:]
        for call in calls:
            call[0]()
    with _lock:
        _mem["allocated"] += nbytes
        _mem["peak"] = max(_mem["peak"], _mem["allocated"])
        need = -(-_mem["allocated"] // (2 << 20)) * (2 << 20)
        _mem["reserved"] = max(_mem["reserved"], need)
        _mem["reserved_peak"] = max(_mem["reserved_peak"], _mem["reserved"])


def step():
    """A backward pass, through autograd (the agent watches it)."""
    t = torch.tensor(1.0)
    if not getattr(t, "requires_grad", True):
        t.requires_grad_(True)
        (t * 2).backward()
    else:
        t.backward()
