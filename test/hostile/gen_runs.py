#!/usr/bin/env python3
"""Hostile run folders, as a stranger could hand them over (a copied run, a cluster's output, a repo).

Usage: gen_runs.py OUT_DIR BASE_RUN_DIR [--huge-mib N]

Every case is OUT_DIR/<case>/run, a copy of the real run folder BASE_RUN_DIR (its snapshot, events,
samples, gpu-at-oom.jsonl) with one thing made hostile: a side file or snapshot replaced by a link to
/dev/zero or to a file outside the folder, by a FIFO, a socket or a directory, given a huge line, or
JSON of the wrong types. OUT_DIR/<case>/outside holds what the outward links point at. Standard library
only; nothing here is committed (a few MiB per run). Prints the cases, one a line, as JSON:
{"case", "dir", "snapshot", "expect"}, where expect is "ok" (the snapshot still loads) or "io" (the
snapshot itself is refused).
"""
import json
import os
import shutil
import socket
import sys

SIDE = ["samples.jsonl", "events.jsonl", "gpu-at-oom.jsonl", "meta.json", "launch.json", "agent.log.jsonl"]


def snapshot_of(run):
    return sorted(f for f in os.listdir(run) if f.startswith("snapshot-") and f.endswith(".pickle"))[0]


def main():
    args = sys.argv[1:]
    huge_mib = 8
    if "--huge-mib" in args:
        i = args.index("--huge-mib")
        huge_mib = int(args[i + 1])
        del args[i : i + 2]
    out, base = args
    snap = snapshot_of(base)
    cases = []
    sockets = []

    def case(name, expect="ok", snapshot=snap):
        root = os.path.join(out, name)
        run = os.path.join(root, "run")
        shutil.copytree(base, run)
        os.makedirs(os.path.join(root, "outside"))
        cases.append({"case": name, "dir": run, "snapshot": os.path.join(run, snapshot), "expect": expect})
        return run, os.path.join(root, "outside")

    def replace(run, name):
        p = os.path.join(run, name)
        if os.path.lexists(p):
            os.remove(p)
        return p

    for side in SIDE:
        stem = side.replace(".", "_")
        run, _ = case(f"{stem}-devzero")
        os.symlink("/dev/zero", replace(run, side))
        run, _ = case(f"{stem}-fifo")
        os.mkfifo(replace(run, side))
        # A link out of the folder to a copy of the real file: readable, so only the folder rule refuses it.
        run, outside = case(f"{stem}-outside")
        src = os.path.join(base, side)
        target = os.path.join(outside, side)
        if os.path.exists(src):
            shutil.copy(src, target)
        else:
            open(target, "w").write("{}\n")
        os.symlink(os.path.relpath(target, run), replace(run, side))
        run, _ = case(f"{stem}-dir")
        os.mkdir(replace(run, side))
        run, _ = case(f"{stem}-socket")
        s = socket.socket(socket.AF_UNIX)
        s.bind(replace(run, side))
        sockets.append(s)
        run, _ = case(f"{stem}-dangling")
        os.symlink("no-such-file", replace(run, side))

    # Lines far over any sane record, with and without a newline, before and after the real records.
    big = b"x" * (huge_mib << 20)
    for side in ["samples.jsonl", "events.jsonl", "gpu-at-oom.jsonl"]:
        stem = side.replace(".", "_")
        run, _ = case(f"{stem}-hugeline")
        real = open(os.path.join(base, side), "rb").read() if os.path.exists(os.path.join(base, side)) else b""
        open(os.path.join(run, side), "wb").write(b'{"t": "' + big + b'"}\n' + real + big)
        run, _ = case(f"{stem}-hugeline-nonewline")
        open(os.path.join(run, side), "wb").write(big)

    # Valid JSON of the wrong types in every side file.
    run, _ = case("wrong-types")
    wrong = [None, 1, "s", [], [None], {"t": "x", "device": "0"}, {"device": 0, "device_total": "1e30"}, {"device": 0, "device_total": -1}]
    with open(os.path.join(run, "samples.jsonl"), "a") as f:
        for w in wrong + [{"t": 1, "device": 0, "allocated": "x", "reserved": [], "max_allocated": None}]:
            f.write(json.dumps(w) + "\n")
    with open(os.path.join(run, "events.jsonl"), "a") as f:
        for w in wrong + [{"type": "event", "event": "backward", "t": 1, "start": "a", "end": {}}, {"type": "event", "event": "oom", "t": 1, "device": 0, "device_total": "big"}]:
            f.write(json.dumps(w) + "\n")
    with open(os.path.join(run, "gpu-at-oom.jsonl"), "w") as f:
        for w in wrong + [
            {"t": "x", "device": 0, "run": 5, "reading": {"devices": [None]}},
            {"t": 1, "device": 0, "run": [487], "reading": {"devices": [None, 3, {"index": 0, "processes": 5}]}},
            {"t": 1, "device": 0, "run": [487], "reading": {"devices": [{"index": 0, "processes": [None, {"pid": "x"}, {"pid": 487, "used": "y"}]}]}},
        ]:
            f.write(json.dumps(w) + "\n")
    for name, value in [("meta.json", [1, 2]), ("launch.json", "a string")]:
        open(os.path.join(run, name), "w").write(json.dumps(value))

    # The snapshot itself: a FIFO, /dev/zero, a link outside, a dangling link, a directory, no kind in its name.
    run, _ = case("snapshot-fifo", "io")
    os.mkfifo(replace(run, snap))
    run, _ = case("snapshot-devzero", "io")
    os.symlink("/dev/zero", replace(run, snap))
    run, _ = case("snapshot-dangling", "io")
    os.symlink("gone.pickle", replace(run, snap))
    run, _ = case("snapshot-dir", "io")
    os.mkdir(replace(run, snap))
    run, _ = case("snapshot-nokind", "ok", "snapshot-1.pickle")
    os.rename(os.path.join(run, snap), os.path.join(run, "snapshot-1.pickle"))

    for c in cases:
        print(json.dumps(c))
    for s in sockets:
        s.close()  # the socket files stay, as a crashed process leaves them


if __name__ == "__main__":
    main()
