"""record(): Headroom's recording around part of a script, as a context manager or a decorator.

It makes the same run folder as `headroom run` (launch.json, then the agent's meta.json, samples,
peak, OOM and exit snapshots), so the editor and the CLI open it alike. Under `headroom run` or
`python -m torch_headroom` the agent is already recording the whole process: record() then only
tells where (`.path`). One recording per process: the agent's hooks stay in torch once installed.
"""
import atexit
import contextlib
import os
import sys
import warnings

from .launch import Launch


class Recording(contextlib.ContextDecorator):
    def __init__(self, out=None, name=None, **settings):
        self.out = out
        self.name = name
        self.settings = settings
        self.launch = None
        self.agent = None
        self.own = False
        self.stopped = False

    @property
    def path(self):
        """The run folder this process records into (None before start())."""
        if self.launch is not None:
            return self.launch.dir
        folder = getattr(self.agent, "folder", None)
        if folder is not None and folder.path:
            return folder.path
        c = getattr(self.agent, "config", None)
        return os.path.join(c.runs_dir, c.run_id) if c is not None and c.run_id else None

    def prepare(self):
        """Names the run and sets the environment that arms the agent, without arming it here yet:
        processes launched from now on (a framework's ranks) join this run."""
        if self.launch is not None or self.agent is not None or _armed() is not None:
            return self
        if os.environ.get("HEADROOM_AGENT") == "1" and os.environ.get("HEADROOM_RUN_ID"):
            return self  # launched by a process that records: this one joins its run
        self.launch = Launch(self.out, self.name or _script(), self.settings, launcher="python")
        if self.launch.settings.get("allocConf") and _cuda_started():
            warnings.warn("torch_headroom: allocConf is read when CUDA starts, which it already has in this process: it is not applied", stacklevel=3)
        self.launch.begin()
        os.environ.update(self.launch.env())
        # Processes launched before this one arms are its children all the same (identity.py).
        os.environ.setdefault("HEADROOM_PROC", "%d -" % os.getpid())
        self.own = True
        atexit.register(self._at_exit)
        return self

    def start(self):
        from headroom_agent import boot

        if self.agent is not None:
            return self
        armed = _armed()
        if armed is not None and not self.own:
            # Armed already: by `headroom run`, `python -m torch_headroom`, the shim in a process
            # launched by one that records, or an earlier record() of this process.
            self.agent = armed
            if getattr(armed, "stopped_by", None) is not None:
                warnings.warn("torch_headroom: this process already recorded into %s; one recording per process" % self.path, stacklevel=3)
            return self
        self.prepare()
        self.agent = boot.install(entry="api")
        return self

    def stop(self, failed=None):
        """Ends this recording: the exit snapshot, the folder's end. A no-op for a recording it did
        not start (the launcher that did ends it at the process's exit)."""
        if not self.own or self.stopped:
            return
        self.stopped = True
        recorder = getattr(self.agent, "recorder", None)
        if recorder is not None:
            recorder.stop()
        if self.agent is not None:
            self.agent.stopped_by = "record"
        self.launch.end(None, error=failed)

    def _at_exit(self):
        # The process ended inside the recording (sys.exit, an uncaught error): the agent's own exit
        # handler has taken the snapshot; the run's end is written here.
        if not self.stopped:
            self.stopped = True
            self.launch.end(None)

    def __enter__(self):
        return self.start()

    def __exit__(self, kind, value, tb):
        self.stop(kind.__name__ if kind is not None else None)
        return False


def record(out=None, name=None, **settings):
    """Records CUDA memory from here to the end of the `with` block (or of the decorated function),
    into out/<time>-<name>-<hex>/ (out defaults to .headroom/runs, name to the script's).
    Settings as `headroom run`'s flags: record="window"|"full", stacks="python"|"all",
    context="alloc"|"all"|"state", modules="off"|"on"|"auto", maxEntries, sampleMs, capGib,
    allocConf="expandable_segments:True" (before CUDA starts)."""
    return Recording(out, name, **settings)


def _armed():
    from headroom_agent import boot

    return boot._agent


def _script():
    main = sys.modules.get("__main__")
    return getattr(main, "__file__", None) or (sys.argv[0] if sys.argv and sys.argv[0] else "python")


def _cuda_started():
    torch = sys.modules.get("torch")
    try:
        return bool(torch is not None and torch.cuda.is_initialized())
    except Exception:
        return False
