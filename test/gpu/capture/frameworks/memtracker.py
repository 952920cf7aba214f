"""nanoGPT eager (nanogpt.py's model) under PyTorch's own module tracker, torch.distributed._tools's
MemTracker, inside `headroom run --modules on`: its figures at its peak, to hold Headroom's
by-module and by-category figures of the same run against. Also says whether this torch has the
newer component tracking (torch.accelerator.memory.component_tracking)."""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nanogpt import GPT  # noqa: E402


def main():
    acc = getattr(torch, "accelerator", None)
    info = {"torch": torch.__version__, "component_tracking": bool(acc and hasattr(getattr(acc, "memory", None), "component_tracking"))}
    try:
        from torch.distributed._tools.mem_tracker import MemTracker
    except Exception as e:  # not in this build
        print("MEMTRACKER " + json.dumps(dict(info, error=repr(e))))
        return
    torch.manual_seed(0)
    model = GPT().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    def step():
        x = torch.randint(0, 8192, (16, 257), device="cuda")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x[:, :-1], x[:, 1:])
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    # MemTracker tracks one iteration: two first (AdamW's state exists from the first), then one tracked.
    step()
    step()
    mt = MemTracker()
    mt.track_external(model, opt)
    with mt:
        step()
    peak = mt.get_tracker_snapshot("peak")
    dev = {str(k): {str(c): int(v) for c, v in d.items()} for k, d in peak.items()}
    # Per module: its fully-qualified name and the peak while it ran (MemTracker's local_peak).
    mods = {}
    for st in mt.memory_tracking.values():
        mods[str(getattr(st, "mod_fqn", "?"))] = {str(d): int(v) for d, v in getattr(st, "local_peak", {}).items()}
    stats = torch.cuda.memory_stats()
    print("MEMTRACKER " + json.dumps(dict(info, peak=dev, local_peaks=mods, requested_peak=stats["requested_bytes.all.peak"], allocated_peak=stats["allocated_bytes.all.peak"])))


if __name__ == "__main__":
    main()
