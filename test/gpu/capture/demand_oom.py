"""A demand OOM: an MLP whose batch is too big for the whole device (no cap, no fragmentation):
the activations of its forward pass fill the GPU until one more cannot be allocated."""
import torch

from common import dump, record

observed = {}


def on_oom(device, alloc, device_total, device_free):
    observed.update(device=device, alloc=alloc, device_allocated=device_total, device_free=device_free)


def forward(model, batch):
    return model(batch).sum()


if __name__ == "__main__":
    torch.manual_seed(0)
    width = 8192
    model = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.GELU()) for _ in range(12)]).cuda()
    total = torch.cuda.get_device_properties(0).total_memory
    # Each layer keeps two activations of batch × width floats for backward: 12 layers overflow the device.
    batch = int(total / (width * 4 * 12))
    record()
    torch._C._cuda_attach_out_of_memory_observer(on_oom)
    message = None
    try:
        x = torch.randn(batch, width, device="cuda")
        loss = forward(model, x)
        loss.backward()
    except torch.OutOfMemoryError as e:
        message = str(e)
    dump("demand_oom", {"oom": dict(observed, message=message), "batch": batch, "width": width}, memviz=False)
