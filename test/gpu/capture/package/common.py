"""What each entry-point workload prints last: the training's result (final loss, a checksum of
the weights) and PyTorch's own peak figures at the end, one JSON line. Deterministic kernels, so
that a run with Headroom and one without must agree bit for bit."""
import json
import os

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

import torch  # noqa: E402


def deterministic(seed=0):
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False


def report(loss, model, path=None):
    checksum = sum(float(p.detach().double().sum()) for p in model.parameters())
    print(json.dumps({
        "loss": repr(float(loss)),
        "checksum": repr(checksum),
        "max_allocated": torch.cuda.max_memory_allocated(),
        "max_reserved": torch.cuda.max_memory_reserved(),
        "path": path,
    }))
