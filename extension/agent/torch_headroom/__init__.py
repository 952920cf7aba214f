"""Headroom for PyTorch: records a process's CUDA memory into a run folder that the Headroom editor
extension and the `headroom` CLI open. Standard library only; frameworks are imported only by
their own modules (torch_headroom.lightning, torch_headroom.transformers).

    python -m torch_headroom train.py ARGS…          # the whole script, as `headroom run`
    with torch_headroom.record(): train()            # part of it (also a decorator)
    Trainer(callbacks=[torch_headroom.lightning.HeadroomCallback()])
    Trainer(..., callbacks=[torch_headroom.transformers.HeadroomCallback()])
"""
from headroom_agent import __version__

from .recording import Recording, record

__all__ = ["Recording", "record", "__version__"]
