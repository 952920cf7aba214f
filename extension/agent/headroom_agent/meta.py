"""What a process's meta.json says of it: the command, versions, the GPU, how recording was set."""
import ctypes
import hashlib
import os
import platform
import sys

from .identity import dist_rank


def driver_version():
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        v = ctypes.c_int()
        if lib.cuDriverGetVersion(ctypes.byref(v)) == 0:
            return "%d.%d" % (v.value // 1000, (v.value % 1000) // 10)
    except Exception:
        pass
    return None


def source_hashes(limit=500):
    """sha256 (16 hex digits) of the workload's own source files (the script, and modules under the
    working directory outside site-packages): the editor marks annotations stale once a file no
    longer has the hash it had when the run recorded it."""
    cwd = os.getcwd() + os.sep
    agent = os.path.dirname(os.path.abspath(__file__)) + os.sep
    paths = set()
    for m in list(sys.modules.values()):
        f = getattr(m, "__file__", None)
        if not f or not f.endswith(".py"):
            continue
        f = os.path.abspath(f)
        if (f.startswith(cwd) or m.__name__ == "__main__") and "-packages" + os.sep not in f and not f.startswith(agent):
            paths.add(f)
    out = {}
    for p in sorted(paths)[:limit]:
        try:
            with open(p, "rb") as fh:
                out[p] = hashlib.sha256(fh.read()).hexdigest()[:16]
        except OSError:
            pass
    return out


def process_meta(torch, config, identity, enabled):
    """The process's part of meta.json (the rest is how it started and ended)."""
    rank = identity.rank
    for r in (dist_rank(), identity.seen_rank):
        rank = r if rank is None else rank
    meta = {
        "pid": os.getpid(),
        "role": identity.role,
        "command": list(getattr(sys, "orig_argv", sys.argv)),
        "argv": list(sys.argv),
        "cwd": os.getcwd(),
        "python": platform.python_version(),
        "torch": getattr(torch, "__version__", None),
        "cuda": getattr(getattr(torch, "version", None), "cuda", None),
        "driver": driver_version(),
        "rank": rank if rank is not None else config.rank,
        "local_rank": config.local_rank,
        "world_size": config.world_size,
        "recording": {
            "stacks": config.stacks,
            "context": config.context,
            "max_entries": config.max_entries,
            "sample_ms": config.sample_ms,
            "cap_gib": config.cap_gib or None,
            "modules": config.modules,
            "mode": config.record,
        },
        "env": {k: v for k, v in os.environ.items() if k.startswith(("PYTORCH_", "CUDA_VISIBLE", "HEADROOM_CAP", "HEADROOM_STACKS", "HEADROOM_CONTEXT"))},
    }
    try:
        if enabled:
            d = torch.cuda.current_device()
            p = torch.cuda.get_device_properties(d)
            meta["gpu"] = {"index": d, "name": p.name, "total_memory": p.total_memory}
    except Exception:
        pass
    return meta
