"""Turns recording on at the first CUDA use, samples the allocator and asks for snapshots.

The process's folder is claimed when it first holds CUDA memory (a sample with reserved bytes, a
dump, an OOM): a process that initializes CUDA and allocates nothing (a compile worker) leaves
nothing behind. No signal handler is installed: SIGTERM ends the process exactly as it would
without Headroom, and what was written before (samples, peak snapshots) is what the run keeps.
"""
import atexit
import os
import time

from .dumps import Dumps
from .meta import process_meta, source_hashes
from .runfolder import now_us
from .sampler import Sampler
from .window import Window


class Recorder(Dumps):
    def __init__(self, torch, agent):
        self.torch = torch
        self.agent = agent
        self.config = agent.config
        self.folder = agent.folder
        self.channel = agent.channel
        self.log = agent.log
        self.pid = os.getpid()
        self.enabled = False
        self.history = False
        self.backend = None
        self.sampler = None
        self.last_peak_dump = 0
        self.next_peak_allowed = 0.0
        self.finished = False
        self.scopes = None
        # Whether the recorder ran at some point: snapshots taken while it is off between windows
        # still hold the blocks and segments.
        self.recorded = False
        self.window = Window(self) if self.config.record == "window" else None
        self._init_dumps()
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
        cuda = self.torch.cuda
        self.enabled = True
        self.backend = cuda.get_allocator_backend() if hasattr(cuda, "get_allocator_backend") else "native"
        if self.backend != "native":
            self.log(
                "warning",
                "the %s allocator backend is in use: PyTorch records no allocation history for it, so Headroom"
                " shows live figures only (no snapshots, no source lines). Unset backend:%s in"
                " PYTORCH_CUDA_ALLOC_CONF to record." % (self.backend, self.backend),
            )
        else:
            self.start_history()
            if self.window is not None:
                self.window.opened()
                if getattr(self.agent, "user_history", False):
                    self.window.user_took_over("all")
                try:
                    self.window.watch_phases(self.torch)
                except Exception as e:
                    self.log("warning", "train()/eval() switches are not watched: %s: %s" % (type(e).__name__, e))
            self._module_scopes()
            attach = getattr(self.torch._C, "_cuda_attach_out_of_memory_observer", None)
            if attach is not None:
                attach(self._on_oom)
        self._apply_cap()
        atexit.register(self.finish, "exit")
        self.sampler = Sampler(self.torch, self.config, self._emit_sample, self._maybe_peak, self.log)
        # One sample here, on the workload's thread, so that any lazy import behind these calls
        # happens here and never races the workload's imports from the sampler thread.
        for d in self.sampler.devices():
            self._emit_sample(self.sampler.sample(d))
        if "sampler" not in self.config.cost_off:
            self.sampler.start()

    def _module_scopes(self):
        if self.config.modules == "off":
            return
        try:
            from .modules import install

            self.scopes = install(self.torch, self.log, self.config.modules, windowed=self.window is not None and self.window.managed)
            if self.scopes is None:
                self.log("info", "this torch cannot stamp allocations (no _set_memory_metadata, torch < 2.10): no memory by module")
        except Exception as e:
            self.log("warning", "memory by module is off: %s: %s" % (type(e).__name__, e))

    def sync_scopes(self):
        """Module hooks follow the windows (modules auto): switched here, on the workload's thread,
        since a window may open on the sampler's thread and hooks must not change under a forward."""
        scopes = self.scopes
        if scopes is None or not scopes.windowed:
            return
        try:
            if self.window.open and self.window.managed:
                scopes.resume()
            else:
                scopes.pause()
        except Exception as e:
            self.log("warning", "memory by module: %s: %s" % (type(e).__name__, e))

    def start_history(self):
        record = self._switch()
        c = self.config
        try:
            record(enabled="all", context=c.context, stacks=c.stacks, max_entries=c.max_entries)
        except TypeError:
            # torch 2.0's legacy signature.
            record(True, trace_alloc_max_entries=c.max_entries, trace_alloc_record_context=True)
        self.history = self.recorded = True

    def _switch(self):
        """PyTorch's recorder switch: the original behind the agent's wrapper (boot.py), or
        whatever replaced the wrapper since."""
        cur = self.torch.cuda.memory._record_memory_history
        orig = getattr(self.agent, "history_switch", None)
        return orig if orig is not None and getattr(cur, "__wrapped__", None) is orig else cur

    def stop_history(self):
        """Between windows: the recorder off. PyTorch keeps the blocks' own stacks."""
        record = self._switch()
        try:
            record(enabled=None)
        except TypeError:
            record(False)
        self.history = False

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

    # -- the folder ----------------------------------------------------------------------------

    def held_memory(self):
        try:
            return int(self.torch.cuda.memory_stats().get("reserved_bytes.all.peak", 0)) > 0
        except Exception:
            return False

    def claim(self, anyway=False):
        """True once this process has its folder; claims it when the process holds (or held) CUDA
        memory, or `anyway` (the caller knows it does, or an OOM: the very first allocation may be
        the one that failed)."""
        if self.folder.claimed:
            return True
        if not anyway and not self.held_memory():
            return False
        return self.agent.claim()

    def on_claimed(self):
        """Right after the claim (any thread): the process's meta and the editor's channel."""
        self.write_meta(status="running", backend=self.backend, sources=source_hashes())
        self.channel.send({"type": "event", "event": "recording", "backend": self.backend, "history": self.history, "t": now_us()})

    # -- samples and peaks ---------------------------------------------------------------------

    def _emit_sample(self, s):
        self.agent.identity.note_rank()
        # The sample itself shows the process holding memory: no second memory_stats() to ask.
        if not self.folder.claimed and not (s["reserved"] > 0 and self.claim(True)):
            return
        self.folder.append("samples.jsonl", s)
        self.channel.send(dict(s, type="sample"))

    def _maybe_peak(self, s):
        """Sampler thread: asks for a peak snapshot when max_allocated grew by the margin since the
        last one, rate limited by the dumps' own cost (at most ~3% of wall time) and an interval."""
        if self.window is not None:
            self.window.on_sample(s)
            return
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
        self.agent.identity.note_rank()
        if os.getpid() != self.pid:
            return
        if self.window is not None:
            self.window.safe_point()
            self.sync_scopes()
        if not self.pending:
            return
        pending, self.pending = self.pending, {}
        if "manual" in pending:
            self.dump("manual")
        if "peak" in pending:
            started = time.time()
            if self.dump("peak", replace=True, extra={"max_allocated": pending["peak"]}):
                self.last_peak_dump = pending["peak"]
                self.next_peak_allowed = time.time() + max(self.config.peak_interval_s, 30 * (time.time() - started))

    # -- metadata, commands and the end --------------------------------------------------------

    def write_meta(self, **extra):
        meta = self.folder.read_json("meta.json") or {}
        meta.update(process_meta(self.torch, self.config, self.agent.identity, self.enabled))
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

    def stop(self):
        """The end of record() in a process that goes on: the exit snapshot, then nothing more is
        recorded (no window reopens, backward() is left alone, an OOM is the workload's own)."""
        self.finish("exit")
        self.enabled = False
        if self.window is not None:
            self.window.managed = False
            self.window.open = False
        if self.history:
            try:
                self.stop_history()
            except Exception as e:
                self.log("warning", "could not turn the recorder off: %s: %s" % (type(e).__name__, e))

    def finish(self, why):
        if self.finished or os.getpid() != self.pid:
            return
        self.finished = True
        try:
            if self.sampler is not None:
                self.sampler.stop()
            if not self.claim():
                return  # never held CUDA memory: nothing to keep
            if self.sampler is not None:
                # A last sample, so the folder ends with the figures at exit.
                for d in self.sampler.devices():
                    self._emit_sample(self.sampler.sample(d))
            path = self.dump(why)
            self.write_meta(status="ended", ended=why, snapshot=path, sources=source_hashes())
            self.channel.send({"type": "event", "event": "exit", "why": why, "t": now_us()})
            self.channel.close(0.5)
        except Exception as e:
            self.log("error", "finishing the run failed: %s" % e)
