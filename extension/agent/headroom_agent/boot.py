"""Arms the agent: waits for `import torch`, then for the first CUDA use, without changing either.

The agent writes nothing to the workload's stdout or stderr: what it has to say goes to the run
folder and to the editor (whose launcher prints warnings as its own status lines).
"""
import atexit
import importlib.abc
import json
import os
import sys
import threading

from .channel import Channel, pid_hello
from .config import Config
from .identity import Identity, dist_rank
from .runfolder import RunFolder, now_us

_agent = None


class Agent(object):
    def __init__(self, config):
        self.config = config
        self.identity = Identity(config)
        self.folder = RunFolder()
        self.channel = Channel(config.socket, config.token, self.command, self.log)
        self.recorder = None
        self.torch = None
        self.early = []
        self._claim_lock = threading.Lock()
        _register_fork_hooks(self)

    def log(self, level, message):
        """To the run folder (kept in memory until the process claims one) and the editor; what
        matters is kept for the editor until the channel starts."""
        self.folder.log(level, message)
        msg = {"type": "log", "level": level, "message": message, "t": now_us()}
        if self.folder.claimed:
            self.channel.send(msg)
        elif level != "info" and len(self.early) < 100:
            self.early.append(msg)

    def command(self, cmd):
        if self.recorder is not None:
            self.recorder.command(cmd)

    def claim(self):
        """Claims this process's folder (see identity.py), then starts the channel to the editor.
        The sampler thread and the workload's thread may both get here first: one lock."""
        with self._claim_lock:
            return self._claim()

    def _claim(self):
        was = self.folder.claimed
        path = self.folder.claim(self.identity.candidates())
        if path is None:
            return False
        if not was and self.recorder is not None:
            rank = self.identity.rank
            for r in (dist_rank(), self.identity.seen_rank):
                rank = r if rank is None else rank
            self.channel.start(pid_hello(self.config, os.getpid(), rank, path))
            early, self.early = self.early, []
            for msg in early:
                self.channel.send(msg)
            self.recorder.on_claimed()
        return True

    def arm(self, torch):
        """`import torch` finished: hook backward() and the first CUDA initialization."""
        self.torch = torch
        try:
            from . import backward

            if "backward" not in self.config.cost_off:
                backward.wrap(torch, self.record_event, self.recording, self.safe_point, self.before_backward)
        except Exception as e:
            self.log("error", "could not watch backward(): %s" % e)
        self._watch_params(torch)
        if self.config.record == "window":
            self._watch_history_switch(torch)
        lazy = getattr(getattr(torch, "cuda", None), "_lazy_call", None)
        if lazy is None:
            self.log("error", "this torch has no torch.cuda._lazy_call; recording is off")
            return
        lazy(self.on_cuda)

    def _watch_params(self, torch):
        """At `import torch`, before any model is built: parameter names for gradients and optimizer
        state (params.py)."""
        if not self.config.params or "params" in self.config.cost_off:
            return
        try:
            from . import params

            if params.install(torch, self) is None:
                self.log("info", "this torch has no global module-registration and optimizer-step hooks (torch < 2.0): gradients and optimizer state are not named")
        except Exception as e:
            self.log("warning", "parameter names are off: %s: %s" % (type(e).__name__, e))

    def _watch_history_switch(self, torch):
        """Window mode turns PyTorch's recorder off between windows, which must never touch a
        workload that records history itself (its own snapshots). Its calls are seen through a
        wrapper put in place at `import torch`, before any user code runs; the agent's own calls
        use the original (self.history_switch)."""
        mem = getattr(getattr(torch, "cuda", None), "memory", None)
        orig = getattr(mem, "_record_memory_history", None)
        if orig is None:
            return
        self.history_switch = orig
        agent = self

        def _record_memory_history(*args, **kwargs):
            agent.user_history = True
            window = getattr(agent.recorder, "window", None)
            if window is not None:
                window.user_took_over(args[0] if args else kwargs.get("enabled", "all"))
            return orig(*args, **kwargs)

        _record_memory_history.__wrapped__ = orig
        _record_memory_history.__doc__ = orig.__doc__
        mem._record_memory_history = _record_memory_history

    def safe_point(self):
        if self.recorder is not None:
            self.recorder.safe_point()

    def before_backward(self, roots):
        scopes = getattr(self.recorder, "scopes", None)
        if scopes is not None:
            scopes.backward_root(roots)

    def recording(self):
        """For the backward() wrapper: 2 record the call, 1 only reach the safe point (the recorder
        is off between windows, and module scopes need no backward root), 0 nothing."""
        r = self.recorder
        if r is None or not r.enabled or r.pid != os.getpid():
            return 0
        return 2 if r.history or r.scopes is not None else 1

    def record_event(self, ev):
        """A backward() call, on the workload's thread: to disk now, to the editor with the next sample."""
        self.folder.append("events.jsonl", ev)
        self.channel.send(ev, wake=False)

    def on_cuda(self):
        """Inside torch.cuda._lazy_init: start recording. Never raises."""
        try:
            from .recorder import Recorder

            self.recorder = Recorder(self.torch, self)
            self.recorder.enable()
            self._chain_excepthook()
        except Exception as e:
            self.log("error", "recording disabled: %s: %s" % (type(e).__name__, e))

    def _chain_excepthook(self):
        previous = sys.excepthook
        folder = self.folder

        def excepthook(kind, value, tb):
            try:
                if folder.claimed:
                    folder.append("events.jsonl", {"type": "event", "event": "exception", "exception": kind.__name__, "message": str(value)[:20000], "t": now_us()})
            except Exception:
                pass
            previous(kind, value, tb)

        sys.excepthook = excepthook

    def explain_nothing(self):
        """At the launched process's exit, when no process folder was claimed: its log and why
        nothing was recorded, in the run's own folder (made by the launcher; never created here),
        so that the launcher can say why."""
        if self.folder.claimed or self.identity.role != "root" or os.getpid() != self.identity.pid:
            return
        run = os.path.join(self.config.runs_dir, self.config.run_id) if self.config.run_id else ""
        if not run or not os.path.isdir(run):
            return
        if self.torch is None:
            why, text = "no-torch", "the process never imported torch"
        elif self.recorder is None:
            why, text = "no-cuda", "torch was imported but CUDA was never initialized"
        else:
            why, text = "no-memory", "CUDA was initialized but no CUDA memory was held"
        try:
            with open(os.path.join(run, "agent.log.jsonl"), "a") as f:
                for _, line in self.folder.early_lines("agent.log.jsonl"):
                    f.write(line)
                f.write(json.dumps({"t": now_us(), "level": "info", "pid": os.getpid(), "message": "nothing recorded: " + text, "nothing_recorded": why}) + "\n")
        except Exception:
            pass

    # -- fork ----------------------------------------------------------------------------------

    def _threads(self):
        s = self.recorder.sampler if self.recorder is not None else None
        return [t for t in (s, self.channel) if t is not None]

    def before_fork(self):
        # The agent's threads end before the fork, so the child inherits no lock they held, and
        # Python 3.12+ does not count them when it warns about forking a multi-threaded process.
        for t in self._threads():
            t.pause()

    def after_fork_parent(self):
        for t in self._threads():
            t.resume()

    def after_fork_child(self):
        """The child starts clean: no recorder (it cannot use the parent's CUDA context), a fresh
        folder of its own if it ever holds CUDA memory, a channel of its own."""
        self.identity.forked()
        self.folder.forked()
        self.channel.forked()
        self.recorder = None
        self.early = []
        self._claim_lock = threading.Lock()


def _register_fork_hooks(agent):
    register = getattr(os, "register_at_fork", None)
    if register is None:
        return

    def guard(fn):
        def hook():
            try:
                fn()
            except Exception:
                pass

        return hook

    register(before=guard(agent.before_fork), after_in_parent=guard(agent.after_fork_parent), after_in_child=guard(agent.after_fork_child))


class _TorchFinder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: it lets the real finders find torch, then runs a hook after torch's
    module has executed. The loader keeps its type; only its exec_module is wrapped."""

    def __init__(self, agent):
        self.agent = agent

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if find is None:
                continue
            spec = find(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        original = loader.exec_module
        agent = self.agent

        def exec_module(module):
            original(module)
            try:
                agent.arm(module)
            except Exception as e:
                agent.log("error", "arming failed: %s" % e)

        loader.exec_module = exec_module
        return spec


def install(entry):
    """Called by the sitecustomize shim or by `python -m headroom_agent`. Idempotent."""
    global _agent
    if _agent is not None:
        return _agent
    config = Config()
    if not config.enabled:
        return None
    _agent = Agent(config)
    if _agent.identity.role == "root":
        atexit.register(_agent.explain_nothing)
    if "torch" in sys.modules:
        _agent.arm(sys.modules["torch"])
    else:
        sys.meta_path.insert(0, _TorchFinder(_agent))
    return _agent
