"""The allocator what-if check on real training code it was not built on (held out): a real client's
script run in this process under PyTorch's recorder, PYTORCH_CUDA_ALLOC_CONF from the environment,
an optional per-process cap. Writes OUT/NAME-<conf>[-capN].pickle and .json as workloads.py does.
python3 heldout.py NAME OUT [--cap-mib N]; NAME is one of SCRIPTS."""
import json
import os
import runpy
import sys

import torch

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
MiB = 1 << 20

name, out = sys.argv[1], sys.argv[2]
cap_mib = int(sys.argv[sys.argv.index("--cap-mib") + 1]) if "--cap-mib" in sys.argv else None
script, argv = SCRIPTS[name]
path = os.path.join(CAPTURE, script)
sys.path.insert(0, os.path.dirname(path))
total = torch.cuda.get_device_properties(0).total_memory
if cap_mib is not None:
    torch.cuda.set_per_process_memory_fraction(cap_mib * MiB / total)
torch.cuda.memory._record_memory_history(max_entries=2_000_000, context=None, stacks="python")
oom = None
sys.argv = [path, *argv]
try:
    runpy.run_path(path, run_name="__main__")
    torch.cuda.synchronize()
except torch.OutOfMemoryError as e:
    oom = str(e).splitlines()[0]
stats = torch.cuda.memory_stats()
conf = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
base = f"{name}-{(conf or 'default').replace(':', '_').replace(',', '__')}" + (f"-cap{cap_mib}" if cap_mib else "")
result = {"workload": name, "alloc_conf": conf, "cap_bytes": cap_mib * MiB if cap_mib else None, "oom": oom is not None, "oom_message": oom, "reserved_peak": stats["reserved_bytes.all.peak"], "allocated_peak": stats["allocated_bytes.all.peak"], "requested_peak": stats["requested_bytes.all.peak"], "allocated_end": stats["allocated_bytes.all.current"], "reserved_end": stats["reserved_bytes.all.current"], "total_memory": total, "torch": torch.__version__, "device": torch.cuda.get_device_name(0)}
torch.cuda.memory._dump_snapshot(os.path.join(out, base + ".pickle"))
torch.cuda.memory._record_memory_history(enabled=None)
with open(os.path.join(out, base + ".json"), "w") as f:
    json.dump(result, f, indent=1)
print(json.dumps(result))
