"""Turns recording on at the first CUDA use and writes the snapshots: at exit, at OOM, on demand,
and at new peaks."""
import atexit
import ctypes
import hashlib
import os
import platform
import signal
import sys
import threading
import time

from .runfolder import now_us
from .sampler import Sampler


def _driver_version():
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


class Recorder(object):
    def __init__(self, torch, config, folder, channel, log):
        self.torch = torch
        self.config = config
        self.folder = folder
        self.channel = channel
        self.log = log
        self.pid = os.getpid()
        self.enabled = False
        self.history = False
        self.sampler = None
        self.seq = 0
        self._dump_lock = threading.Lock()
        self.last_peak_dump = 0
        self.next_peak_allowed = 0.0
        self.finished = False
        # Dumps asked for by other threads, taken at the workload's next safe point (see safe_point).
        self.pending = {}

    # -- at the first CUDA use ------------------------------------------------------------------

    def enable(self):
        """Runs inside torch.cuda._lazy_init (through _lazy_call): it must never raise."""
        try:
            self._enable()
        except Exception as e:
            self.log("error", "could not start recording: %s: %s" % (type(e).__name__, e))

    def _enable(self):
        torch = self.torch
        cuda = torch.cuda
        self.enabled = True
        backend = cuda.get_allocator_backend() if hasattr(cuda, "get_allocator_backend") else "native"
        self.folder.ensure()
        if backend != "native":
            self.log(
                "warning",
                "the %s allocator backend is in use: PyTorch records no allocation history for it, so Headroom"
                " shows live figures only (no snapshots, no source lines). Unset backend:%s in"
                " PYTORCH_CUDA_ALLOC_CONF to record." % (backend, backend),
            )
        else:
            self._record_history()
            attach = getattr(torch._C, "_cuda_attach_out_of_memory_observer", None)
            if attach is not None:
                attach(self._on_oom)
        self._apply_cap()
        self.write_meta(status="running", backend=backend, sources=source_hashes())
        self.channel.send({"type": "event", "event": "recording", "backend": backend, "history": self.history, "t": now_us()})
        atexit.register(self.finish, "exit")
        self._install_sigterm()
        self.sampler = Sampler(torch, self.config, self._emit_sample, self._maybe_peak, self.log)
        # One sample here, on the workload's thread, so that any lazy import behind these calls
        # happens here and never races the workload's imports from the sampler thread.
        for d in self.sampler.devices():
            self.sampler.sample(d)
        self.sampler.start()

    def _record_history(self):
        mem = self.torch.cuda.memory
        c = self.config
        try:
            mem._record_memory_history(enabled="all", context=c.context, stacks=c.stacks, max_entries=c.max_entries)
        except TypeError:
            # torch 2.0's legacy signature.
            mem._record_memory_history(True, trace_alloc_max_entries=c.max_entries, trace_alloc_record_context=True)
        self.history = True

    def _apply_cap(self):
        gib = self.config.cap_gib
        if gib <= 0:
            return
        cuda = self.torch.cuda
        for d in range(cuda.device_count()):
            total = cuda.get_device_properties(d).total_memory
            frac = min(1.0, gib * (1 << 30) / float(total))
            cuda.set_per_process_memory_fraction(frac, d)
        self.log("info", "memory cap: %.2f GiB per device (simulating a smaller GPU)" % gib)

    def _install_sigterm(self):
        # Only over the default action, so a workload's own handler always wins; the default
        # action is then replayed, so the exit status is the same as without Headroom.
        if threading.current_thread() is not threading.main_thread():
            return
        try:
            if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
                signal.signal(signal.SIGTERM, self._on_sigterm)
        except (ValueError, OSError, AttributeError):
            pass

    def _on_sigterm(self, signum, frame):
        try:
            self.finish("sigterm")
        finally:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)

    # -- samples and peaks ---------------------------------------------------------------------

    def _emit_sample(self, s):
        self.folder.append("samples.jsonl", s)
        self.channel.send(dict(s, type="sample"))

    def _maybe_peak(self, s):
        """Sampler thread: asks for a peak snapshot when max_allocated grew by the margin since the
        last one, rate limited by the dumps' own cost (at most ~3% of wall time) and an interval."""
        if not self.history:
            return
        peak = s["max_allocated"]
        if peak <= self.last_peak_dump * (1 + self.config.peak_margin) or time.time() < self.next_peak_allowed:
            return
        self.pending["peak"] = peak

    def safe_point(self):
        """On the workload's thread, after backward() returns: takes the snapshots other threads
        asked for. A dump may import modules lazily (on 2.11 it pulls in sympy and friends), and an
        import on the sampler thread racing the workload's own imports broke torch._dynamo's
        import with a circular-import error, so dumps never run on a background thread."""
        if not self.pending or os.getpid() != self.pid:
            return
        pending, self.pending = self.pending, {}
        if "manual" in pending:
            self.dump("manual")
        if "peak" in pending:
            started = time.time()
            if self.dump("peak", replace=True, extra={"max_allocated": pending["peak"]}):
                self.last_peak_dump = pending["peak"]
                self.next_peak_allowed = time.time() + max(self.config.peak_interval_s, 30 * (time.time() - started))

    # -- snapshots -----------------------------------------------------------------------------

    def dump(self, kind, replace=False, extra=None):
        if not self.history or os.getpid() != self.pid:
            return None
        with self._dump_lock:
            self.seq += 1
            name = "snapshot-%s.pickle" % kind if replace else "snapshot-%s-%d.pickle" % (kind, self.seq)
            path = self.folder.file(name)
            tmp = self.folder.file(".%s.tmp" % name)
            t0 = time.time()
            try:
                self.torch.cuda.memory._dump_snapshot(tmp)
                os.replace(tmp, path)
            except Exception as e:
                self.log("error", "could not write the %s snapshot: %s: %s" % (kind, type(e).__name__, e))
                return None
            ev = {
                "type": "event",
                "event": "snapshot",
                "kind": kind,
                "path": path,
                "bytes": os.path.getsize(path),
                "seconds": round(time.time() - t0, 4),
                "t": now_us(),
            }
            ev.update(extra or {})
            self.folder.append("events.jsonl", ev)
            self.channel.send(ev)
            return path

    def _on_oom(self, device, alloc, device_total, device_free):
        # Called with the GIL held, before the OutOfMemoryError is raised: an exception here would
        # replace the OOM, so nothing escapes.
        try:
            ev = {"type": "event", "event": "oom", "device": device, "alloc": alloc, "device_total": device_total, "device_free": device_free, "t": now_us()}
            self.folder.append("events.jsonl", ev)
            self.channel.send(ev)
            self.dump("oom", extra={"device": device, "alloc": alloc})
        except Exception as e:
            self.log("error", "OOM observer failed: %s" % e)

    # -- metadata and the end ------------------------------------------------------------------

    def write_meta(self, **extra):
        torch = self.torch
        meta = self.folder.read_json("meta.json") or {}
        meta.update(
            {
                "pid": os.getpid(),
                "command": list(getattr(sys, "orig_argv", sys.argv)),
                "argv": list(sys.argv),
                "cwd": os.getcwd(),
                "python": platform.python_version(),
                "torch": getattr(torch, "__version__", None),
                "cuda": getattr(torch.version, "cuda", None),
                "driver": _driver_version(),
                "rank": self.config.rank,
                "local_rank": self.config.local_rank,
                "world_size": self.config.world_size,
                "recording": {
                    "stacks": self.config.stacks,
                    "context": self.config.context,
                    "max_entries": self.config.max_entries,
                    "sample_ms": self.config.sample_ms,
                    "cap_gib": self.config.cap_gib or None,
                },
                "env": {k: v for k, v in os.environ.items() if k.startswith(("PYTORCH_", "CUDA_VISIBLE", "HEADROOM_CAP", "HEADROOM_STACKS", "HEADROOM_CONTEXT"))},
            }
        )
        try:
            if self.enabled:
                d = torch.cuda.current_device()
                p = torch.cuda.get_device_properties(d)
                meta["gpu"] = {"index": d, "name": p.name, "total_memory": p.total_memory}
        except Exception:
            pass
        meta.update(extra)
        self.folder.write_json("meta.json", meta)

    def command(self, cmd):
        kind = cmd.get("type")
        if kind == "capture":
            self.pending["manual"] = True
            self.log("info", "snapshot requested: it is taken after the workload's next backward() (or at exit)")
        elif kind == "stop":
            import _thread

            self.log("info", "stop requested by the editor: interrupting the main thread (as Ctrl-C)")
            _thread.interrupt_main()

    def finish(self, why):
        if self.finished or os.getpid() != self.pid:
            return
        self.finished = True
        try:
            if self.sampler is not None:
                self.sampler.stop()
                # A last sample, so the folder ends with the figures at exit.
                for d in self.sampler.devices():
                    self._emit_sample(self.sampler.sample(d))
            path = self.dump(why)
            self.write_meta(status="ended", ended=why, snapshot=path, sources=source_hashes())
            self.channel.send({"type": "event", "event": "exit", "why": why, "t": now_us()})
        except Exception as e:
            self.log("error", "finishing the run failed: %s" % e)
