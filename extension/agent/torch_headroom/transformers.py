"""Headroom as a Hugging Face Trainer callback: `Trainer(..., callbacks=[HeadroomCallback()])`.

Recording starts when the callback is made, before the Trainer moves the model to the GPU, and
ends with training (snapshots at new peaks, at an OOM and at the end), in a run folder as
`headroom run` writes. Imports transformers only when this module is imported.
"""
try:
    from transformers import TrainerCallback
except ImportError as e:
    raise ImportError("torch_headroom.transformers needs transformers (pip install transformers): %s" % e) from None

from .recording import Recording


class HeadroomCallback(TrainerCallback):
    def __init__(self, out=None, name=None, **settings):
        """out: where runs go (default .headroom/runs); settings as torch_headroom.record()'s."""
        self.recording = Recording(out, name, **settings).start()

    @property
    def path(self):
        return self.recording.path

    def on_train_end(self, args, state, control, **kwargs):
        self.recording.stop()
