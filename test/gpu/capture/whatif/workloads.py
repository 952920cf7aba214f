"""Workloads of different shapes for the allocator what-if check (test/gpu/capture/whatif/run.sh):
python3 workloads.py NAME OUT [--record]. Each prints PyTorch's own figures as JSON to OUT/NAME-<conf>.json;
with --record it also dumps OUT/NAME.pickle (the trace, no stacks: only sizes and order matter)."""
import json
import os
import sys

import torch

name, out = sys.argv[1], sys.argv[2]
record = "--record" in sys.argv
torch.manual_seed(0)
torch.backends.cudnn.benchmark = False
dev = "cuda"


def transformer():
    # An encoder over batches of varying sequence length (the sizes change every step).
    layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=1024, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, num_layers=4).to(dev)
    opt = torch.optim.AdamW(model.parameters())
    for seq in [128, 384, 256, 512, 192, 448, 320, 64]:
        x = torch.randn(16, seq, 256, device=dev)
        model(x).square().mean().backward()
        opt.step()
        opt.zero_grad(set_to_none=True)


def cnn():
    import torchvision

    model = torchvision.models.resnet18(weights=None).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for side in [96, 128, 64, 112, 128, 80]:
        x = torch.randn(32, 3, side, side, device=dev)
        torch.nn.functional.cross_entropy(model(x), torch.randint(0, 1000, (32,), device=dev)).backward()
        opt.step()
        opt.zero_grad(set_to_none=True)


def detection():
    import torchvision

    model = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_fpn(weights=None, weights_backbone=None, num_classes=5).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.001)
    for sizes in [(320, 480), (400, 300), (512, 384), (288, 352)]:
        images = [torch.rand(3, h, w, device=dev) for h, w in [sizes, sizes[::-1]]]
        targets = [{"boxes": torch.tensor([[10.0, 20.0, 100.0, 120.0], [50.0, 60.0, 200.0, 180.0]], device=dev), "labels": torch.tensor([1, 2], device=dev)} for _ in images]
        sum(model(images, targets).values()).backward()
        opt.step()
        opt.zero_grad(set_to_none=True)


def two_streams():
    # Half the work on a side stream: its blocks live in the allocator's per-stream pools.
    side = torch.cuda.Stream()
    model = torch.nn.Sequential(*[torch.nn.Linear(1024, 1024) for _ in range(6)]).to(dev)
    for rows in [2048, 4096, 1024, 3072, 2048]:
        x = torch.randn(rows, 1024, device=dev)
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            y = model(x.clone()).relu()
        torch.cuda.current_stream().wait_stream(side)
        y.record_stream(torch.cuda.current_stream())
        (model(x) + y).sum().backward()
        del y


if record:
    torch.cuda.memory._record_memory_history(max_entries=2_000_000, context=None, stacks="python")
{"transformer": transformer, "cnn": cnn, "detection": detection, "two_streams": two_streams}[name]()
torch.cuda.synchronize()
stats = torch.cuda.memory_stats()
conf = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "") or "default"
result = {"workload": name, "alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""), "reserved_peak": stats["reserved_bytes.all.peak"], "allocated_peak": stats["allocated_bytes.all.peak"], "requested_peak": stats["requested_bytes.all.peak"], "torch": torch.__version__, "device": torch.cuda.get_device_name(0)}
if record:
    torch.cuda.memory._dump_snapshot(os.path.join(out, name + ".pickle"))
    torch.cuda.memory._record_memory_history(enabled=None)
with open(os.path.join(out, f"{name}-{conf.replace(':', '_').replace(',', '__')}.json"), "w") as f:
    json.dump(result, f, indent=1)
print(json.dumps(result))
