#!/usr/bin/env python3
"""Writes one hostile snapshot for test/cost/readers.family.ts: python3 gen_readers.py KIND N OUT.

KIND is one of:
  node-name  a C++ frame name of N characters, "BackwardBackward…" with no "::apply", on 32 allocations
  collide    N distinct stacks whose hashes collide under the unseeded FNV-1a StackTable used before
  collide-lib  the same stacks of site-packages frames: each a distinct library call path (the call tree's size)
  shared     one frame repeated N times in one list, shared (pickle memo) by N/5,000 trace entries
  long1      N 64-byte LONG1 integers, each popped at once (a compressible stream of bignums)

Our own generators, written from the shape of each attack; stdlib only (pickle, gzip).
"""
import gzip
import pickle
import sys

KIND, N, OUT = sys.argv[1], int(sys.argv[2]), sys.argv[3]
MASK = 0xFFFFFFFF
PRIME = 16777619


def frame(filename, line, name):
    return {"filename": filename, "line": line, "name": name}


def alloc(i, frames):
    return {"action": "alloc", "addr": 0x7F0000000000 + i * 512, "size": 512, "stream": 0,
            "time_us": 1_700_000_000_000_000 + i, "compile_context": "N/A", "user_metadata": "", "frames": frames}


def snapshot(trace):
    return {"segments": [], "device_traces": [trace], "allocator_settings": {}, "external_annotations": []}


def write(obj):
    with gzip.open(OUT, "wb", compresslevel=6) as f:
        pickle.dump(obj, f, protocol=4)


def node_name():
    # A C++ frame (no .py file) of the engine thread: the autograd-node pattern runs on its name.
    cpp = frame("??", 0, ("Backward" * (N // 8 + 1))[:N])
    engine = frame("??", 0, "torch::autograd::Engine::evaluate_function")
    write(snapshot([alloc(i, [cpp, engine]) for i in range(32)]))


def fnv(ids, state):
    for x in ids:
        state = ((state ^ x) * PRIME) & MASK
    return state


def collide(library=False):
    # FNV-1a over frame ids: s -> (s^x)·P. Two triples (x1, y1, z1) and (x2, y2, z2) that reach the
    # same state after y make z1 ^ z2 the difference to cancel; k such blocks in a row give 2^k
    # stacks of 3k frames (after a common prefix) with one hash. Frame ids are given in order of appearance: a first entry
    # lists frames 0..F-1, so that every id used is one of them.
    F = 4096
    k = max(1, (N - 1).bit_length())
    prefix = list(range(128))  # shared by every stack: each false match is compared past it
    length = len(prefix) + 3 * k
    # C++ frames: the point is the hash, not what the analyses make of many user or library lines.
    frames = [frame(f"/venv/lib/python3.11/site-packages/torch/nn/m{i % 64}.py", i, f"f{i}") if library else frame("??", 0, f"c10::f{i}") for i in range(F)]
    state = fnv(prefix, (0x811C9DC5 ^ length) & MASK)
    blocks = []
    for _ in range(k):
        u1 = ((state ^ 0) * PRIME) & MASK
        near = {(((u1 ^ y) * PRIME) & MASK) >> 12: y for y in range(F)}
        found = None
        for x2 in range(1, F):
            u2 = ((state ^ x2) * PRIME) & MASK
            for y2 in range(F):
                y1 = near.get((((u2 ^ y2) * PRIME) & MASK) >> 12)
                if y1 is not None:
                    found = (x2, y1, y2)
                    break
            if found:
                break
        assert found, "no colliding triple"
        x2, y1, y2 = found
        d = fnv([0, y1], state) ^ fnv([x2, y2], state)
        a, b = (0, y1, 0), (x2, y2, d)
        assert fnv(a, state) == fnv(b, state)
        blocks.append((a, b))
        state = fnv(a, state)
    trace = [alloc(0, frames)]
    for i in range(N):
        ids = list(prefix)
        for j, (a, b) in enumerate(blocks):
            ids.extend(b if (i >> j) & 1 else a)
        trace.append(alloc(i + 1, [frames[x] for x in ids]))
    write(snapshot(trace))


def shared():
    # One list object: pickle writes it once and refers to it from every entry by its memo index.
    one = frame("/m/train.py", 7, "step")
    frames = [one] * N
    write(snapshot([alloc(i, frames) for i in range(max(1, N // 5000))]))


def long1():
    # PROTO 4, then N × (LONG1 of 64 bytes, POP), then an empty snapshot: valid, and useless. One
    # block of 65,536 is compressed once and written as many gzip members (they concatenate).
    big = b"\x8a\x40" + bytes([0x5A] * 63) + b"\x7f" + b"0"
    B = 65536
    member = gzip.compress(big * B, compresslevel=9, mtime=0)
    with open(OUT, "wb") as f:
        f.write(gzip.compress(b"\x80\x04", mtime=0))
        for _ in range(N // B):
            f.write(member)
        f.write(gzip.compress(big * (N % B) + pickle.dumps(snapshot([]), protocol=4)[2:], mtime=0))


{"node-name": node_name, "collide": collide, "collide-lib": lambda: collide(True), "shared": shared, "long1": long1}[KIND]()
