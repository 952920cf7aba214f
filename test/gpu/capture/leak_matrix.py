"""The leak detector's matrix (issue 18): real training loops, clean and leaking, each dumped as
OUT/<case>.pickle.gz with the truth PyTorch gives beside it (<case>.truth.json): requested and
allocated bytes at every step boundary (right after the optimizer step, or at the end of each eval
batch), and for a leak the bytes it keeps per step and the line that creates them.

  python3 leak_matrix.py OUT [CASE ...]     each case in its own process (a fresh allocator)

Models come from configs, data is random; nothing is downloaded.
"""
import gzip
import inspect
import json
import os
import shutil
import subprocess
import sys

CASES = [
    "transformer_eager", "transformer_compiled", "grad_accum", "gan", "hf_trainer", "lightning",
    "eval_only", "cache_plateau", "leak_bytes", "leak_kib", "leak_mib", "leak_lightning_hook",
]
LINES = {}


def here(name):
    """Notes the caller's line as the one that creates what a leak keeps."""
    LINES[name] = inspect.currentframe().f_back.f_lineno


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    if len(sys.argv) > 3 and sys.argv[2] == "--one":
        return one(out, sys.argv[3])
    failed = []
    for case in sys.argv[2:] or CASES:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), out, "--one", case])
        print("%s: exit %d" % (case, r.returncode), flush=True)
        if r.returncode:
            failed.append(case)
    sys.exit(1 if failed else 0)


def one(out, case):
    import torch

    torch.manual_seed(0)
    torch.cuda.memory._record_memory_history(max_entries=400_000, stacks="python", context="alloc")
    boundaries = []

    def boundary():
        torch.cuda.synchronize()
        s = torch.cuda.memory_stats()
        boundaries.append({"requested": s["requested_bytes.all.current"], "allocated": s["allocated_bytes.all.current"]})

    from leak_cases import run_case

    leak = run_case(case, boundary, here)
    path = os.path.join(out, case + ".pickle")
    torch.cuda.memory._dump_snapshot(path)
    with open(path, "rb") as f, gzip.open(path + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    os.remove(path)
    truth = {"case": case, "torch_version": torch.__version__, "device_name": torch.cuda.get_device_name(0), "boundaries": boundaries, "leak": None}
    if leak:
        truth["leak"] = {"bytes_per_step": leak["bytes"], "file": "leak_cases.py", "line": LINES[leak["line"]]}
    with open(os.path.join(out, case + ".truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
    print("%s: %d boundaries, requested %d -> %d, leak %s" % (case, len(boundaries), boundaries[0]["requested"], boundaries[-1]["requested"], truth["leak"]), flush=True)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
