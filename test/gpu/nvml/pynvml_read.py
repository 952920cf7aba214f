"""PyTorch-independent figures from pynvml, for comparing with Headroom's addon: JSON on stdout."""
import json

import pynvml

pynvml.nvmlInit()
out = {"driver": pynvml.nvmlSystemGetDriverVersion(), "devices": []}
for i in range(pynvml.nvmlDeviceGetCount()):
    h = pynvml.nvmlDeviceGetHandleByIndex(i)
    v1 = pynvml.nvmlDeviceGetMemoryInfo(h)
    d = {"index": i, "v1": {"total": v1.total, "used": v1.used, "free": v1.free}}
    try:
        v2 = pynvml.nvmlDeviceGetMemoryInfo(h, version=pynvml.nvmlMemory_v2)
        d["v2"] = {"total": v2.total, "used": v2.used, "free": v2.free, "reserved": v2.reserved}
    except Exception as e:  # older pynvml or driver
        d["v2_error"] = str(e)
    d["processes"] = [{"pid": p.pid, "used": p.usedGpuMemory} for p in pynvml.nvmlDeviceGetComputeRunningProcesses(h)]
    out["devices"].append(d)
print(json.dumps(out))
