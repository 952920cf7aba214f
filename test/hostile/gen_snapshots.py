#!/usr/bin/env python3
"""Writes hostile snapshot inputs into DIR (python3 gen_snapshots.py DIR), plus DIR/manifest.json.

Each input is what an attacker (or a broken producer) could hand a Headroom user. The manifest says
what the CLI must do with it: exit 0 ("ok"), or exit 2 with a typed error, naming the limit when
one is expected. Big inputs are made on the fly and cheaply: a gzip file may hold several members,
so one compressed block of repeated opcodes is written N times. Nothing here is committed output.

stdlib only.
"""
import gzip
import json
import os
import pickle
import struct
import sys
import zlib

PROTO = b"\x80\x04"
STOP = b"."
MiB = 1 << 20

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
manifest = {}


def put(name, data, expect, args=(), note=""):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    manifest[name] = {"expect": expect, "args": list(args), "note": note}


def gz_member(data):
    return gzip.compress(data, compresslevel=6, mtime=0)


def put_gz_repeated(name, head, block, times, tail, expect, note=""):
    """A .pickle.gz of head + block*times + tail, compressing `block` once (gzip members concatenate)."""
    member = gz_member(block)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(gz_member(head))
        for _ in range(times):
            f.write(member)
        if tail:
            f.write(gz_member(tail))
    manifest[name] = {"expect": expect, "args": [], "note": note}


def frame(filename, line, name):
    return {"filename": filename, "line": line, "name": name}


def entry(action="alloc", addr=0x7F0000000000, size=512, frames=None, **extra):
    e = {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": 1_700_000_000_000_000,
         "compile_context": "N/A", "user_metadata": ""}
    if frames is not None:
        e["frames"] = frames
    e.update(extra)
    return e


def snapshot(traces=None, segments=None):
    return {"segments": segments or [], "device_traces": [traces or []],
            "allocator_settings": {}, "external_annotations": []}


def dump(obj, protocol=4):
    return pickle.dumps(obj, protocol=protocol)


def good_trace(frames):
    return [entry(addr=0x7F0000000000 + i * 512, frames=frames) for i in range(4)]


# --- the reader's limits -----------------------------------------------------------------------

# 16 MB of MARK: V8 used to die with "invalid size" (exit 133) at 150 MB.
put("marks.pickle", PROTO + b"(" * (16 * MiB), "limit:marks")
# The figures: 150 MB and 2 GB of MARK, gzipped (~0.15 MB and ~2 MB on disk).
put_gz_repeated("marks_150mb.pickle.gz", PROTO, b"(" * (50 * MiB), 3, b"", "limit:marks")
put_gz_repeated("marks_2gb.pickle.gz", PROTO, b"(" * (64 * MiB), 32, b"", "limit:marks")

# A sparse memo: LONG_BINPUT every 16384 indices (each used to allocate a 96 KiB chunk), then a
# valid snapshot whose own memo (protocol 2, BINPUT 0, 1, 2…) lies below the first sparse index.
sparse = PROTO + b"N" + b"".join(b"r" + struct.pack("<I", i * 16384) for i in range(1, 24_000)) + b"0"
body = dump(snapshot(good_trace([frame("train.py", 3, "step")])), protocol=2)[2:]
put("sparse_memo.pickle", sparse + body, "ok", note="must stay small in memory (rss)")
# An index no memo of a real file reaches.
put("memo_index.pickle", PROTO + b"N" + b"r" + struct.pack("<I", 0xFFFFFFF0) + STOP, "limit:memo-entries")

# Huge ints: one 67 MB LONG4 (35 s and 4 GB before), eight of 8 MB, and a 255-byte LONG1.
put_gz_repeated("long4_67mb.pickle.gz", PROTO + b"\x8b" + struct.pack("<I", 67 * MiB), b"\x01" * (67 * MiB), 1, STOP, "limit:long-bytes")
put_gz_repeated("long4_8x8mb.pickle.gz", PROTO + b"(", b"\x8b" + struct.pack("<I", 8 * MiB) + b"\x7f" * (8 * MiB), 8, b"l.", "limit:long-bytes")
put("long1_255.pickle", PROTO + b"\x8a\xff" + b"\x01" * 255 + STOP, "limit:long-bytes")

# 100 strings of 60 MB in a 6 MB .pickle.gz (ran the heap out at 4.3 GB); then strings just under
# the one-string limit whose total passes the all-strings limit.
put_gz_repeated("strings_100x60mb.pickle.gz", PROTO + b"(", b"X" + struct.pack("<I", 60 * MiB) + b"a" * (60 * MiB), 100, b"l.", "limit:string-bytes")
put_gz_repeated("strings_80x15mb.pickle.gz", PROTO + b"(", b"X" + struct.pack("<I", 15 * MiB) + b"b" * (15 * MiB), 80, b"l.", "limit:strings-total")
put("string8_claim.pickle", PROTO + b"\x8d" + struct.pack("<Q", 1 << 40), "limit:string-bytes")

# CPU bombs: bounded in memory, but 8-13 s of CPU for a 1 MB file before.
put_gz_repeated("none_pop.pickle.gz", PROTO, b"N0" * (32 * MiB), 32, b"", "limit:work-per-byte")
put_gz_repeated("frames.pickle.gz", PROTO, (b"\x95" + struct.pack("<Q", 0)) * (8 * MiB), 16, b"", "limit:work-per-byte")
put_gz_repeated("mark_pop.pickle.gz", PROTO, b"(1" * (32 * MiB), 32, b"", "limit:work-per-byte")

# Millions of small containers that stay objects (a list of empty lists; each costs heap).
put_gz_repeated("empty_lists.pickle.gz", PROTO + b"](", b"]" * 1000 + b"e(", 10_000, b"e.", "limit:objects")

# 10 million live allocations (the 42 MB .pickle.gz took 38.7 s and 1.78 GB): as blocks,
# each a dict kept on the heap, they stop at the objects limit. Keys and values are memoized once.
def sbu(text):
    return b"\x8c" + bytes([len(text)]) + text.encode()


KEYS = PROTO + b"".join(sbu(k) + b"q" + bytes([i]) + b"0" for i, k in enumerate(
    ["size", "state", "active_allocated", "requested_size", "device", "address", "total_size", "blocks", "segments", "device_traces"], 1))
BLOCK = b"}(h\x01J\x00\x02\x00\x00h\x02h\x03h\x04J\x00\x02\x00\x00u"
BLOCKS_HEAD = KEYS + b"}(h\x09](}(h\x05K\x00h\x06\x8a\x06" + b"\x00" * 5 + b"\x7fh\x07J\x00\x00\x00\x40h\x08]("
BLOCKS_TAIL = b"eueh\x0a](eu."
put_gz_repeated("live_blocks_10m.pickle.gz", BLOCKS_HEAD, BLOCK * 1000 + b"e(", 10_000, BLOCKS_TAIL, "limit:objects")
put_gz_repeated("live_blocks_3k.pickle.gz", BLOCKS_HEAD, BLOCK * 1000 + b"e(", 3, BLOCKS_TAIL, "ok", note="the same bytes, fewer: valid")

# Deep nesting (limit 64) and a deep stack of values.
put("deep_lists.pickle", PROTO + b"]" * 100_000 + b"a" * 99_999 + STOP, "limit:depth")
put("deep_tuples.pickle", PROTO + b"N" + b"\x85" * 1000 + STOP, "limit:depth")

# The same snapshot through flags that lower limits: each limit is named, and the flag works.
small = dump(snapshot([entry(addr=0x7F0000000000 + i * 512) for i in range(2000)]))
put("small_for_flags.pickle", small, "ok")
put("small_trace_entries.pickle", small, "limit:trace-entries", args=["--limit", "trace-entries=1000"])
put("small_pickle_bytes.pickle", small, "limit:pickle-bytes", args=["--limit", "pickle-bytes=4KiB"])
put("small_file_bytes.pickle", small, "limit:file-bytes", args=["--limit=file-bytes=1K"])
put("small_cells.pickle", small, "limit:cells", args=["--limit", "cells=5000"])
put("bad_limit_flag.pickle", small, "usage", args=["--limit", "no-such-limit=5"])

# --- wrong shapes and absurd numbers: typed errors, never "internal error" ----------------------

put("frames_int.pickle", dump(snapshot([entry(frames=123456789)])), "error", note="frames is an int")
put("frames_str.pickle", dump(snapshot([entry(frames="train.py:3")])), "error")
put("frames_of_ints.pickle", dump(snapshot([entry(frames=[1, 2, 3])])), "error")
for key, value in [("time_us", 10**30), ("time_us", -5), ("time_us", 1.5), ("size", 10**30), ("size", -512),
                   ("size", 512.5), ("size", float("nan")), ("size", float("inf")), ("addr", -1), ("addr", 2**64),
                   ("stream", -7), ("size", "512"), ("size", None)]:
    tag = f"{key}_{str(value).replace('-', 'minus').replace('.', 'p')}"
    put(f"entry_{tag}.pickle", dump(snapshot([entry(**{key: value})])), "error")
seg = {"device": 0, "address": 0x7F0000000000, "total_size": 2 * MiB, "allocated_size": 512, "active_size": 512,
       "requested_size": 512, "stream": 0, "segment_type": "large", "segment_pool_id": (0, 0), "is_expandable": False,
       "frames": [], "blocks": [{"address": 0x7F0000000000, "size": 2 * MiB, "requested_size": 512, "state": "active_allocated", "frames": []}]}
for key, value in [("total_size", 10**30), ("address", -1), ("device", 10**15), ("allocated_size", float("nan"))]:
    s = dict(seg, **{key: value})
    put(f"segment_{key}_{str(value).replace('-', 'minus')}.pickle", dump(snapshot(segments=[s])), "error")
block = dict(seg["blocks"][0], size=10**30)
put("block_size_huge.pickle", dump(snapshot(segments=[dict(seg, blocks=[block])])), "error")
put("frame_line_huge.pickle", dump(snapshot(good_trace([frame("a.py", 10**30, "f"), frame("b.py", -3, "g")]))), "ok")
put("annotation_time_huge.pickle", dump(dict(snapshot(good_trace([])), external_annotations=[{"stage": "START", "name": "x", "device": 0, "time_us": 10**30}])), "ok")


class Evil:
    def __reduce__(self):
        return (os.system, ("touch /tmp/headroom-pwned",))


put("reduce_os_system.pickle", dump(Evil()), "error")
put("reduce_in_segment.pickle", dump({"segments": [Evil()], "device_traces": []}, protocol=2), "error")
laughs = ["lol"] * 10
for _ in range(9):
    laughs = [laughs] * 10
put("billion_laughs.pickle", dump({"segments": [], "device_traces": laughs}), "error")
put("shared_trace_100k_devices.pickle", dump({"segments": [], "device_traces": [[entry(addr=i * 512) for i in range(100)]] * 100_000}), "error")
put("top_int.pickle", dump(42), "error")
put("no_segments.pickle", dump({"hello": "world"}), "error")
put("segments_str.pickle", dump({"segments": "nope", "device_traces": []}), "error")
put("block_not_dict.pickle", dump(snapshot(segments=[dict(seg, blocks=[7])])), "error")
valid = dump(snapshot(good_trace([frame("train.py", 3, "step")])))
put("truncated.pickle", valid[: len(valid) // 2], "error")
put("truncated.pickle.gz", gzip.compress(valid, mtime=0)[:40], "error")
put("empty.pickle", b"", "error")
put("json.pickle", b'{"segments": []}', "error")
put("protocol0.pickle", pickle.dumps([1, 2], protocol=0), "error")

# --- text that must reach the terminal as text ---------------------------------------------------

nasty = [
    "\x1b]0;pwned title\x07", "\x1b[2J\x1b[H", "\x1b[31mRED\x1b[0m", "ok\r\nnote: forged line", "bell\x07", "nul\x00byte",
    "[phish](https://attacker.example/login)", "![img](https://attacker.example/pixel.png)",
    "[run](command:headroom.runFile?%5B%22%2Fetc%2Fpasswd%22%5D)", "$(warning) **FAKE**", "<img src=x onerror=alert(1)>",
    "\u202etxt.exe", "del\x7f", "c1\x9b31m",
]
frames = [frame(f"/home/u/{n}.py", i + 1, f"fn_{n}") for i, n in enumerate(nasty)]
traces = [entry(addr=0x7F0000000000 + i * 4096, size=1 << 20, frames=[f]) for i, f in enumerate(frames)]
traces.append(entry(action="oom", addr=None, size=1 << 40, frames=[frames[3]], device_free=1 << 20))
traces[0]["user_metadata"] = "step=\x1b[2J1"
traces[1]["compile_context"] = "\r\nnote: forged"
put("control_chars.pickle", dump(snapshot(traces)), "ok", note="no raw control character on stdout/stderr")
put("control_chars_path\x1b[2J.pickle", dump(snapshot(good_trace([frames[0]]))), "ok", note="the path itself is hostile")

with open(os.path.join(OUT, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1)
