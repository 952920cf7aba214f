"""frag_oom.py's allocation pattern again, under the same cap: does the 200 MiB request succeed?
Run with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True or max_split_size_mb:N to check the OOM
doctor's remedies; prints JSON."""
import json
import os
import sys

import torch

from frag_oom import MiB, fragment, request

total = torch.cuda.get_device_properties(0).total_memory
torch.cuda.set_per_process_memory_fraction((1536 + 100) * MiB / total)
keep = fragment()
try:
    got = request()
    result = {"ok": True, "reserved": torch.cuda.memory_reserved(), "allocated": torch.cuda.memory_allocated()}
except torch.OutOfMemoryError as e:
    result = {"ok": False, "message": str(e)}
result["alloc_conf"] = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
result["torch_version"] = torch.__version__
result["device_name"] = torch.cuda.get_device_name(0)
conf = result["alloc_conf"]
suffix = "_expandable" if "expandable_segments:True" in conf else "_max_split" if "max_split_size_mb" in conf else ""
with open(os.path.join(sys.argv[1], "frag_rerun" + suffix + ".json"), "w") as f:
    json.dump(result, f, indent=1)
print(json.dumps(result))
