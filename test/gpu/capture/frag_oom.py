"""A fragmentation OOM: holes inside one large segment, under a per-process cap, so that a 200 MiB
request fits in none of the 50 MiB holes although far more than 200 MiB is reserved but unallocated."""
import torch

from common import dump, record

MiB = 1 << 20
observed = {}


def on_oom(device, alloc, device_total, device_free):
    try:
        observed.update(device=device, alloc=alloc, device_allocated=device_total, device_free=device_free)
        dump("frag_oom_in_observer", {"oom": dict(device=device, alloc=alloc, device_allocated=device_total, device_free=device_free)})
    except Exception as e:  # never let the observer replace the OOM
        observed["observer_error"] = repr(e)


def fragment():
    big = torch.empty(1536 * MiB, dtype=torch.uint8, device="cuda")
    del big  # one cached 1.5 GiB segment
    chunks = [torch.empty(50 * MiB, dtype=torch.uint8, device="cuda") for _ in range(30)]
    keep = chunks[::2]
    del chunks  # every other 50 MiB chunk is freed: 15 holes inside the one segment
    return keep


def request():
    return torch.empty(200 * MiB, dtype=torch.uint8, device="cuda")


if __name__ == "__main__":
    total = torch.cuda.get_device_properties(0).total_memory
    torch.cuda.set_per_process_memory_fraction((1536 + 100) * MiB / total)
    record()
    torch._C._cuda_attach_out_of_memory_observer(on_oom)
    keep = fragment()
    message = None
    try:
        request()
    except torch.OutOfMemoryError as e:
        message = str(e)
    dump("frag_oom", {"oom": dict(observed, message=message), "fraction_bytes": (1536 + 100) * MiB})
