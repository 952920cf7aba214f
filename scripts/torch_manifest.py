"""Writes the public names of torch's modules (what HR017 checks attribute chains against), from the
installed torch. Usage: python3 scripts/torch_manifest.py OUT.json"""
import importlib
import json
import pkgutil
import sys
import types

import torch

ROOTS = [
    "torch", "torch.cuda", "torch.cuda.memory", "torch.cuda.amp", "torch.cpu", "torch.cpu.amp", "torch.amp",
    "torch.nn", "torch.nn.functional", "torch.nn.utils", "torch.nn.init", "torch.nn.parallel", "torch.nn.attention",
    "torch.optim", "torch.optim.lr_scheduler", "torch.utils", "torch.utils.data", "torch.utils.checkpoint",
    "torch.autograd", "torch.backends", "torch.backends.cuda", "torch.backends.cudnn", "torch.distributed",
    "torch.linalg", "torch.fft", "torch.special", "torch.jit", "torch.compiler", "torch.profiler", "torch.func",
    "torch.random", "torch.hub", "torch.serialization", "torch.multiprocessing", "torch.distributions", "torch.sparse",
    "torch.mps", "torch.export", "torch.library", "torch.testing", "torch.cuda.graphs", "torch.cuda.streams",
    "torch.autograd.graph", "torch.autograd.profiler", "torch.utils.hooks", "torch.nn.modules", "torch.nn.parameter",
]

out = {"torch_version": torch.__version__, "modules": {}}
for name in ROOTS:
    try:
        mod = importlib.import_module(name)
    except Exception as e:  # a module that needs an optional dependency
        print("skipped %s: %s" % (name, e), file=sys.stderr)
        continue
    # Module-level names, properties of module classes (torch.backends.cudnn.benchmark), and
    # submodules not imported yet (torch.distributed.tensor, torch.nn.utils.prune).
    names = set(dir(mod)) | set(dir(type(mod)))
    # torch.backends.* replace themselves with a PropModule wrapping the real module in `.m`.
    inner = getattr(mod, "m", None)
    if isinstance(inner, types.ModuleType):
        names |= set(dir(inner))
    names |= {m.name for m in pkgutil.iter_modules(getattr(mod, "__path__", []) or [])}
    names = sorted(n for n in names if not n.startswith("__"))
    subs = sorted(n for n in names if isinstance(getattr(mod, n, None), types.ModuleType))
    out["modules"][name] = {"names": names, "submodules": subs}
with open(sys.argv[1], "w") as f:
    json.dump(out, f, separators=(",", ":"), sort_keys=True)
print("modules:", len(out["modules"]), "torch", torch.__version__)
