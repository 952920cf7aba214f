"""Arms the agent: waits for `import torch`, then for the first CUDA use, without changing either."""
import importlib.abc
import sys

from .channel import Channel, pid_hello
from .config import Config
from .runfolder import RunFolder, now_us

_agent = None


class Agent(object):
    def __init__(self, config):
        self.config = config
        self.folder = RunFolder(config.run_dir())
        self.channel = Channel(config.socket, config.token, pid_hello(config), self.command, self.log)
        self.recorder = None
        self.pending = []
        self.torch = None

    def log(self, level, message):
        """To the run folder and the editor; before recording starts, kept until it does."""
        if self.recorder is None or not self.recorder.enabled:
            self.pending.append((now_us(), level, message))
            return
        self.folder.log(level, message)
        self.channel.send({"type": "log", "level": level, "message": message, "t": now_us()})
        if level in ("warning", "error"):
            try:
                sys.stderr.write("headroom: %s\n" % message)
            except Exception:
                pass

    def command(self, cmd):
        if self.recorder is not None:
            self.recorder.command(cmd)

    def arm(self, torch):
        """`import torch` finished: hook backward() and the first CUDA initialization."""
        self.torch = torch
        try:
            from . import backward

            backward.wrap(torch, self.record_event, self.recording, self.safe_point)
        except Exception as e:
            self.log("error", "could not watch backward(): %s" % e)
        lazy = getattr(torch.cuda, "_lazy_call", None)
        if lazy is None:
            self.log("error", "this torch has no torch.cuda._lazy_call; recording is off")
            return
        lazy(self.on_cuda)

    def safe_point(self):
        if self.recorder is not None:
            self.recorder.safe_point()

    def recording(self):
        return self.recorder is not None and self.recorder.enabled

    def record_event(self, ev):
        self.folder.append("events.jsonl", ev)
        self.channel.send(ev)

    def on_cuda(self):
        """Inside torch.cuda._lazy_init: start the channel and the recorder. Never raises."""
        try:
            from .recorder import Recorder

            self.recorder = Recorder(self.torch, self.config, self.folder, self.channel, self.log)
            self.channel.start()
            self.recorder.enable()
            for t, level, message in self.pending:
                self.folder.log(level, message)
            self.pending = []
            self._chain_excepthook()
        except Exception as e:
            try:
                sys.stderr.write("headroom: recording disabled: %s: %s\n" % (type(e).__name__, e))
            except Exception:
                pass

    def _chain_excepthook(self):
        previous = sys.excepthook
        folder = self.folder

        def excepthook(kind, value, tb):
            try:
                folder.append("events.jsonl", {"type": "event", "event": "exception", "exception": kind.__name__, "message": str(value)[:20000], "t": now_us()})
            except Exception:
                pass
            previous(kind, value, tb)

        sys.excepthook = excepthook


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
    if "torch" in sys.modules:
        _agent.arm(sys.modules["torch"])
    else:
        sys.meta_path.insert(0, _TorchFinder(_agent))
    return _agent

