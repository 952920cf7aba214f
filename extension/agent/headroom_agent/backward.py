"""Records where backward() was called and when it ran.

Autograd's engine allocates on its own thread, with no Python stack; the run folder's backward
windows (the calling line, start and end in epoch µs, the clock of the snapshot's time_us) let the
engine credit those allocations to the `loss.backward()` line that caused them.
"""
import os
import sys
import threading

from .runfolder import now_us

_TORCH = os.sep + "torch" + os.sep
_HERE = os.path.dirname(os.path.abspath(__file__))


def _caller():
    """The first frame outside torch and this agent: the user's backward() call."""
    f = sys._getframe(2)
    while f is not None:
        fn = f.f_code.co_filename
        if _TORCH not in fn and not fn.startswith(_HERE):
            return fn, f.f_lineno, f.f_code.co_name
        f = f.f_back
    return None, 0, None


def wrap(torch, record, recording, after, before=None):
    """Wraps Tensor.backward and torch.autograd.backward; nested calls record only the outer one.
    `recording()` says what to do: 0 nothing, 1 only the safe point (the recorder is off between
    windows: a backward() then costs one call), 2 everything. `before` gets the roots (the tensor
    or tensors given) just before the outermost backward(); `after` runs on the calling thread
    once it returned: a safe point."""
    depth = threading.local()

    def make(orig):
        def backward(*args, **kwargs):
            level = 0 if getattr(depth, "n", 0) else recording()
            if not level:
                return orig(*args, **kwargs)
            depth.n = 1
            if level == 1:
                try:
                    return orig(*args, **kwargs)
                finally:
                    depth.n = 0
                    try:
                        after()
                    except Exception:
                        pass
            if before is not None:
                before(args[0] if args else kwargs.get("tensors"))
            start = now_us()
            try:
                return orig(*args, **kwargs)
            finally:
                depth.n = 0
                try:
                    fn, line, name = _caller()
                    end = now_us()
                    record({"type": "event", "event": "backward", "t": end, "start": start, "end": end, "file": fn, "line": line, "function": name, "thread": threading.current_thread().name})
                    after()
                except Exception:
                    pass

        backward.__wrapped__ = orig
        backward.__doc__ = orig.__doc__
        backward.__name__ = getattr(orig, "__name__", "backward")
        backward.__qualname__ = getattr(orig, "__qualname__", "backward")
        return backward

    torch.Tensor.backward = make(torch.Tensor.backward)
    torch.autograd.backward = make(torch.autograd.backward)
