"""Prints what a script can observe of its interpreter, then ends as asked (argv[1]):
ok | code3 | raise | sigterm | sigint | warn. With torch (if importable) it also trains a step."""
import os
import signal
import sys
import warnings

print("argv", sys.argv)
print("name", __name__)
print("path0", sys.path[0] == os.path.dirname(os.path.abspath(__file__)))
print("main file", os.path.basename(sys.modules["__main__"].__file__))
print("sitecustomize", getattr(sys.modules.get("sitecustomize"), "__file__", None))
print("stdin tty", sys.stdin.isatty(), "stdout tty", sys.stdout.isatty())
print("excepthook", sys.excepthook.__module__)
print("sigterm handler", signal.getsignal(signal.SIGTERM))
try:
    import torch

    torch.manual_seed(0)
    w = torch.randn(8, 4, requires_grad=True)
    loss = (torch.randn(16, 8) @ w).pow(2).mean()
    loss.backward()
    print("torch", torch.__version__, "loss %.6f" % loss.item(), "grad %.6f" % w.grad.abs().sum().item())
    print("backward", torch.Tensor.backward.__name__, torch.autograd.backward.__doc__ is not None)
except ImportError:
    print("torch absent")
sys.stdout.flush()
how = sys.argv[1]
if how == "code3":
    sys.exit(3)
if how == "raise":
    raise ValueError("boom from the workload")
if how == "sigterm":
    os.kill(os.getpid(), signal.SIGTERM)
if how == "sigint":
    os.kill(os.getpid(), signal.SIGINT)
if how == "warn":
    warnings.warn("a workload warning", UserWarning)
print("end")
