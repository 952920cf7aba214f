"""Headroom's sitecustomize shim.

Headroom puts this folder first on PYTHONPATH so that every Python process of a run (the script,
torchrun's workers, multiprocessing children) loads it at startup. It does nothing unless
HEADROOM_AGENT=1, and it then chain-loads the sitecustomize it shadows (Debian and Ubuntu ship
one), so the interpreter behaves as it would without Headroom.
"""
import os as _os
import sys as _sys


def _headroom_boot():
    if _os.environ.get("HEADROOM_AGENT") != "1":
        return
    try:
        from headroom_agent import boot

        boot.install(entry="sitecustomize")
    except Exception as e:  # never break the workload, never write to its output
        try:
            run = _os.path.join(_os.environ.get("HEADROOM_RUNS_DIR", ""), _os.environ.get("HEADROOM_RUN_ID", ""))
            if _os.environ.get("HEADROOM_RUN_ID") and _os.path.isdir(run):
                with open(_os.path.join(run, "agent-disabled-%d.txt" % _os.getpid()), "w") as f:
                    f.write("headroom: agent disabled: %s: %s\n" % (type(e).__name__, e))
        except Exception:
            pass


def _chain_shadowed():
    """Runs the next sitecustomize on sys.path, as site.py would have; False if there is none."""
    import importlib.machinery
    import importlib.util

    here = _os.path.dirname(_os.path.abspath(__file__))
    rest = [p for p in _sys.path if _os.path.abspath(p or _os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None or spec.origin in (None, __file__):
        return False
    module = importlib.util.module_from_spec(spec)
    # The import of this shim then returns the shadowed module, as if it had been imported alone.
    _sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)
    return True


_headroom_boot()
if not _chain_shadowed():
    # Nothing to chain to: leave no sitecustomize behind. site.py takes this exact error for "there
    # is no sitecustomize" and stays silent (Python 3.9-3.13).
    raise ImportError("no sitecustomize besides Headroom's shim", name="sitecustomize")
