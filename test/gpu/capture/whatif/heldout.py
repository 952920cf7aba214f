"""The allocator what-if check on real training code it was not built on (held out): a real client's
script run in this process, recorded by recording.py as workloads.py is (PYTORCH_CUDA_ALLOC_CONF from
the environment, --cap-mib a per-process cap).
python3 heldout.py NAME OUT [--cap-mib N]; NAME is one of SCRIPTS."""
import os
import runpy
import sys

from recording import record

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURE = os.path.dirname(HERE)
# name: (script, argv): HF Trainer (GPT-2, bf16, gradient checkpointing), a nanoGPT loop compiled
# (torch.compile, bf16 autocast), Lightning, timm's ViT (bf16 autocast), Hugging Face T5.
SCRIPTS = {
    "hf_trainer": ("frameworks/hf_trainer.py", ["/tmp/hf_out"]),
    "nanogpt_compiled": ("frameworks/nanogpt.py", ["--compile", "--steps", "6"]),
    "lightning": ("frameworks/lightning_mlp.py", []),
    "timm_vit": ("library/timm_vit.py", []),
    "hf_t5": ("library/hf_t5.py", []),
}

name, out = sys.argv[1], sys.argv[2]
script, argv = SCRIPTS[name]
path = os.path.join(CAPTURE, script)
sys.path.insert(0, os.path.dirname(path))


def work():
    sys.argv = [path, *argv]
    runpy.run_path(path, run_name="__main__")


record(name, out, work)
