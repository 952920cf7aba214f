"""The recording around one what-if workload (workloads.py, heldout.py): PyTorch's recorder with no
stacks (only sizes and order matter), an optional per-process cap, and at the end OUT/BASE.pickle
with PyTorch's own figures beside it (.json). An OOM ends the workload and is recorded."""
import json
import os
import sys

import torch

MiB = 1 << 20


def flag(name, default=None):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def record(name, out, work):
    """Runs work() recorded, under --cap-mib N if given, and writes NAME-<conf>[-capN][-TAG]."""
    cap_mib = int(flag("--cap-mib")) if flag("--cap-mib") else None
    tag = flag("--tag")
    total = torch.cuda.get_device_properties(0).total_memory
    if cap_mib is not None:
        torch.cuda.set_per_process_memory_fraction(cap_mib * MiB / total)
    torch.cuda.memory._record_memory_history(max_entries=2_000_000, context=None, stacks="python")
    oom = None
    try:
        work()
        torch.cuda.synchronize()
    except torch.OutOfMemoryError as e:
        oom = str(e).splitlines()[0]
    stats = torch.cuda.memory_stats()
    conf = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
    base = f"{name}-{(conf or 'default').replace(':', '_').replace(',', '__')}" + (f"-cap{cap_mib}" if cap_mib else "") + (f"-{tag}" if tag else "")
    result = {"workload": name, "alloc_conf": conf, "cap_bytes": cap_mib * MiB if cap_mib else None, "oom": oom is not None, "oom_message": oom, "reserved_peak": stats["reserved_bytes.all.peak"], "allocated_peak": stats["allocated_bytes.all.peak"], "requested_peak": stats["requested_bytes.all.peak"], "allocated_end": stats["allocated_bytes.all.current"], "reserved_end": stats["reserved_bytes.all.current"], "total_memory": total, "torch": torch.__version__, "device": torch.cuda.get_device_name(0)}
    torch.cuda.memory._dump_snapshot(os.path.join(out, base + ".pickle"))
    torch.cuda.memory._record_memory_history(enabled=None)
    with open(os.path.join(out, base + ".json"), "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result))
