"""Headroom as a Lightning callback: `Trainer(callbacks=[HeadroomCallback()])`.

Records from the trainer's setup (before the model moves to the GPU) to its teardown, with
snapshots at new peaks, at an OOM and at the end, into a run folder as `headroom run` writes.
Ranks that Lightning launches as new processes join the same run (<run>-rank<r>). Imports
Lightning (`lightning` or `pytorch_lightning`) only when this module is imported.
"""
import sys

from .recording import Recording


def _callback_base():
    """The Callback of the Lightning the script uses: `lightning.pytorch` and `pytorch_lightning`
    are two packages whose Trainers each accept only their own callbacks."""
    order = ["lightning.pytorch.callbacks", "pytorch_lightning.callbacks"]
    if "pytorch_lightning" in sys.modules and "lightning" not in sys.modules:
        order.reverse()
    errors = []
    for name in order:
        try:
            return __import__(name, fromlist=["Callback"]).Callback
        except ImportError as e:
            errors.append(str(e))
    raise ImportError("torch_headroom.lightning needs Lightning (pip install lightning): %s" % "; ".join(errors))


Callback = _callback_base()


class HeadroomCallback(Callback):
    def __init__(self, out=None, name=None, **settings):
        """out: where runs go (default .headroom/runs); settings as torch_headroom.record()'s."""
        super().__init__()
        # Named now, before fit() launches any rank, so that the ranks inherit the run's name.
        self.recording = Recording(out, name, **settings).prepare()

    @property
    def path(self):
        """The run folder (None before setup)."""
        return self.recording.path

    def setup(self, trainer, pl_module, stage):
        self.recording.start()

    def on_exception(self, trainer, pl_module, exception):
        self.recording.stop(type(exception).__name__)

    def teardown(self, trainer, pl_module, stage):
        self.recording.stop()
