"""Workloads that Headroom must not harm, each the same with or without the agent: argv[1] is the
case. They use test/agent/workloads/fakecuda.py's device (no GPU needed).

  sigterm-dump DELAY_MS  backward passes with growing memory; SIGTERM to itself after DELAY_MS
                         (with the agent and HEADROOM_TEST_DUMP_S set, mid-dump)
  chained                a Lightning-style SIGTERM handler that chains the one it finds
  blocked                prints 'blocking', then sits in C code (pbkdf2) until killed
  forks N                N forks while the sampler runs; children run backward and exit
  spawn N                N multiprocessing 'spawn' workers, each using the device
  spawn-dist N           torch.multiprocessing.spawn of N ranks in a gloo process group
  cuda-no-alloc          initializes the device and allocates nothing
"""
import hashlib
import os
import signal
import sys
import threading
import time

import fakecuda
import torch

fakecuda.install()


def sigterm_dump(delay_ms):
    print("start", flush=True)
    threading.Timer(delay_ms / 1000.0, os.kill, (os.getpid(), signal.SIGTERM)).start()
    for i in range(100000):
        fakecuda.use(1 << 20)
        fakecuda.step()
        time.sleep(0.005)
    print("not killed")


def chained():
    fakecuda.use(4 << 20)
    fakecuda.step()
    found = signal.getsignal(signal.SIGTERM)
    print("sigterm handler", found, flush=True)
    stop = []

    def on_term(signum, frame):
        stop.append(signum)
        # Lightning's _SignalConnector calls the handler it found, unless it was the default.
        if found not in (None, signal.SIG_DFL, signal.SIG_IGN):
            found(signum, frame)

    signal.signal(signal.SIGTERM, on_term)
    os.kill(os.getpid(), signal.SIGTERM)
    while not stop:
        fakecuda.step()
        time.sleep(0.01)
    print("graceful stop after signal", stop[0], flush=True)
    sys.exit(0)


def blocked():
    fakecuda.use(4 << 20)
    fakecuda.step()
    print("blocking", flush=True)
    hashlib.pbkdf2_hmac("sha256", b"headroom", b"salt", 50_000_000)  # seconds of C code
    print("returned", flush=True)


def child_step():
    fakecuda.step()
    os._exit(0)


def forks(n, in_flight=4):
    """Up to `in_flight` children at a time; a child still alive 20 s after its fork hung."""
    fakecuda.use(4 << 20)
    hangs = 0
    parent_steps = 0
    live = {}
    i = 0
    while i < n or live:
        while i < n and len(live) < in_flight:
            if i % 50 == 0:
                fakecuda.use(1 << 10)
                fakecuda.step()
                parent_steps += 1
            pid = os.fork()
            if pid == 0:
                child_step()
            live[pid] = time.time() + 20
            i += 1
        for pid, deadline in list(live.items()):
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                del live[pid]
            elif time.time() > deadline:
                hangs += 1
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                del live[pid]
        time.sleep(0.0005)
    print("forks", n, "hangs", hangs, "parent backward", parent_steps, flush=True)


def worker(i):
    fakecuda.install()
    fakecuda.use((i + 1) << 20)
    fakecuda.step()


def spawn(n):
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=worker, args=(i,)) for i in range(n)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    print("exit codes", [p.exitcode for p in procs], flush=True)


def rank_worker(rank, n, port):
    import torch.distributed as dist

    fakecuda.install()
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank, world_size=n)
    fakecuda.use((rank + 1) << 20)
    fakecuda.step()
    dist.barrier()
    dist.destroy_process_group()


def spawn_dist(n):
    import socket

    import torch.multiprocessing as mp

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(rank_worker, args=(n, port), nprocs=n)
    print("spawned", n, "ranks", flush=True)


def cuda_no_alloc():
    fakecuda.use(0)
    print("initialized, nothing allocated", flush=True)


if __name__ == "__main__":
    case, args = sys.argv[1], [int(a) for a in sys.argv[2:]]
    {"sigterm-dump": sigterm_dump, "chained": chained, "blocked": blocked, "forks": forks, "spawn": spawn, "spawn-dist": spawn_dist, "cuda-no-alloc": cuda_no_alloc}[case](*args)
