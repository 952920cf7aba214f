"""A stand-in for torch, for the agent's tests under a Python without torch: just the names the
agent and test/agent/workloads/fakecuda.py touch (lazy CUDA init, autograd's backward, the
memory module). fakecuda.py gives it a device, as it does to Debian's CPU torch. Tests only."""
import sys
import types

__version__ = "0.0+fake"

version = types.SimpleNamespace(cuda=None)
_C = types.SimpleNamespace()


def _submodule(name, **attrs):
    m = types.ModuleType("torch." + name)
    m.__dict__.update(attrs)
    sys.modules["torch." + name] = m
    globals()[name] = m
    return m


# torch.cuda's lazy initialization, as torch implements it: calls queued before the first CUDA use
# run inside _lazy_init, later ones at once.
_queued = []


def _lazy_call(fn, **kwargs):
    if cuda._initialized:
        fn()
    else:
        _queued.append((fn, ""))


_submodule("cuda", _initialized=False, _queued_calls=_queued, _lazy_call=_lazy_call, is_available=lambda: False)
cuda.is_initialized = lambda: cuda._initialized
_submodule("cuda.memory")
cuda.memory = sys.modules["torch.cuda.memory"]
_submodule("distributed", is_initialized=lambda: False, is_available=lambda: False)


def _autograd_backward(tensors, *args, **kwargs):
    for t in tensors if isinstance(tensors, (list, tuple)) else [tensors]:
        t.grad_steps += 1


_submodule("autograd", backward=_autograd_backward)


class Tensor(object):
    def __init__(self, value=0.0):
        self.value = value
        self.grad_steps = 0

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Computes the gradient (here: counts the calls)."""
        autograd.backward(self)

    def item(self):
        return self.value


def tensor(value):
    return Tensor(value)
