"""Shared by the library workloads. `--plain OUT.pickle`: the script records itself, as users do
(PyTorch's recorder with its defaults, no Headroom), dumps OUT.pickle at the end and writes
PyTorch's own figures, read just before the dump, to OUT.truth.json. Without it the script only
trains: it is then run under `headroom run`, which records by itself."""
import argparse
import json
import os
import sys
import time

import torch

MAX_ENTRIES = 1_000_000
# Key names as in test/fixtures/snapshots/*.truth.json.
STAT_KEYS = {
    "max_memory_allocated": "allocated_bytes.all.peak",
    "memory_allocated": "allocated_bytes.all.current",
    "max_memory_reserved": "reserved_bytes.all.peak",
    "memory_reserved": "reserved_bytes.all.current",
    "requested_bytes_peak": "requested_bytes.all.peak",
    "requested_bytes_current": "requested_bytes.all.current",
}


def parse(add=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--plain", metavar="OUT.pickle", help="record with PyTorch's recorder and dump there")
    # PyTorch's default is 'all'; capture.sh retries with 'alloc' when 'all' breaks a run (torch 2.11
    # breaks backward through non-reentrant checkpointing with it: docs/testing.md).
    ap.add_argument("--context", default="all", choices=("all", "alloc", "state"))
    if add:
        add(ap)
    return ap.parse_args()


def run(train, args):
    """Runs train(args), recording around it with --plain. What train returns (model, optimizer,
    trainer) stays alive until after the dump, as in a user's script that dumps at its end."""
    start = time.time()
    if args.plain:
        kw = {} if args.context == "all" else {"context": args.context}
        torch.cuda.memory._record_memory_history(max_entries=MAX_ENTRIES, **kw)
    keep = train(args)
    if args.plain:
        dump(args.plain, args, time.time() - start)
    del keep


def dump(path, args, seconds):
    torch.cuda.synchronize()
    stats = torch.cuda.memory_stats()
    truth = {"torch_version": torch.__version__, "device_name": torch.cuda.get_device_name(0)}
    truth.update({k: stats.get(v) for k, v in STAT_KEYS.items()})
    truth.update(
        allocator_backend=torch.cuda.get_allocator_backend(),
        script=os.path.abspath(sys.argv[0]),
        argv=sys.argv[1:],
        record={"max_entries": MAX_ENTRIES, "context": args.context, "stacks": "all"},
        train_seconds=round(seconds, 2),
    )
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    torch.cuda.memory._dump_snapshot(path)
    base = path[: -len(".pickle")] if path.endswith(".pickle") else path
    with open(base + ".truth.json", "w") as f:
        json.dump(truth, f, indent=1)
    print("%s: requested peak %d, allocated peak %d, reserved peak %d" % (path, truth["requested_bytes_peak"], truth["max_memory_allocated"], truth["max_memory_reserved"]), flush=True)
