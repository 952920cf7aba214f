"""A non-PyTorch OOM, run under Headroom (`headroom run -- python3 non_pytorch_oom.py TRUTH`): 60 % of
the device is taken outside PyTorch (cuMemAlloc through the driver, as another framework or library
would), then PyTorch allocates 1 GiB tensors until one fails. TRUTH gets the figures at the OOM:
NVML's device-used (torch.cuda.device_memory_used), the device total, PyTorch's reserved, the
bytes allocated outside it, every process on the GPU (pynvml) and PyTorch's message. Started beside
another process that holds memory, the run's gpu-at-oom.jsonl should name that one."""
import ctypes
import json
import os
import sys

import torch

def processes():
    try:
        import pynvml

        pynvml.nvmlInit()
        h = pynvml.nvmlDeviceGetHandleByIndex(0)
        return [{"pid": p.pid, "used": p.usedGpuMemory} for p in pynvml.nvmlDeviceGetComputeRunningProcesses(h)]
    except Exception as e:  # no pynvml: the truth says so
        return repr(e)


if __name__ == "__main__":
    truth_path = sys.argv[1]
    torch.zeros(1, device="cuda")  # the primary context, current on this thread from here on
    total = torch.cuda.get_device_properties(0).total_memory
    cuda = ctypes.CDLL("libcuda.so.1")
    outside = int(total * 0.6) // (1 << 21) * (1 << 21)
    ptr = ctypes.c_uint64()
    rc = cuda.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(outside))
    assert rc == 0, f"cuMemAlloc_v2 failed: {rc}"
    held = []
    message = None
    figures = {}
    try:
        while True:
            held.append(torch.empty(1 << 30, dtype=torch.uint8, device="cuda"))
    except torch.OutOfMemoryError as e:
        message = str(e)
        figures = {
            "device_used": int(torch.cuda.device_memory_used(0)),
            "free": int(torch.cuda.mem_get_info(0)[0]),
            "reserved": int(torch.cuda.memory_reserved(0)),
            "allocated": int(torch.cuda.memory_allocated(0)),
            "processes": processes(),
        }
    with open(truth_path, "w") as f:
        json.dump({"pid": os.getpid(), "device_name": torch.cuda.get_device_name(0), "torch_version": torch.__version__, "total": total, "outside_bytes": outside, "tensors": len(held), "message": message, **figures}, f, indent=1)
    del held
    cuda.cuMemFree_v2(ptr)
