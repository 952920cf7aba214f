"""Workloads of different shapes for the allocator what-if check (test/gpu/whatif.gpu.test.ts, run.sh):
python3 workloads.py NAME OUT [--cap-mib N] [--tag T]. Records the allocator's trace (no stacks: only sizes and
order matter) and dumps OUT/NAME-<conf>[-capN].pickle with PyTorch's own figures beside it (.json).
PYTORCH_CUDA_ALLOC_CONF is read from the environment; --cap-mib sets a per-process memory fraction.
An OOM ends the workload and is recorded ("oom": true), the snapshot is dumped all the same."""
import json
import os
import sys

import torch

name, out = sys.argv[1], sys.argv[2]
cap_mib = int(sys.argv[sys.argv.index("--cap-mib") + 1]) if "--cap-mib" in sys.argv else None
tag = sys.argv[sys.argv.index("--tag") + 1] if "--tag" in sys.argv else None
torch.manual_seed(0)
torch.backends.cudnn.benchmark = False
dev = "cuda"
MiB = 1 << 20


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


def graphs():
    # A training step captured in a CUDA graph (its blocks in the graph's private pool), replayed,
    # with eager steps of another size around it in the default pool.
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    static_x = torch.randn(256, 1024, device=dev)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            opt.zero_grad(set_to_none=True)
            model(static_x).square().mean().backward()
            opt.step()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(g):
        loss = model(static_x).square().mean()
        loss.backward()
        opt.step()
    for rows in [512, 128, 384]:
        static_x.copy_(torch.randn(256, 1024, device=dev))
        g.replay()
        model(torch.randn(rows, 1024, device=dev)).sum().item()
    del g
    torch.cuda.synchronize()
    model(torch.randn(768, 1024, device=dev)).square().mean().backward()


def frag():
    # frag_oom's pattern: 15 holes of 50 MiB inside one 1.5 GiB segment, then a 200 MiB request.
    big = torch.empty(1536 * MiB, dtype=torch.uint8, device=dev)
    del big
    chunks = [torch.empty(50 * MiB, dtype=torch.uint8, device=dev) for _ in range(30)]
    keep = chunks[::2]
    del chunks
    got = torch.empty(200 * MiB, dtype=torch.uint8, device=dev)
    return keep, got


total = torch.cuda.get_device_properties(0).total_memory
if cap_mib is not None:
    torch.cuda.set_per_process_memory_fraction(cap_mib * MiB / total)
torch.cuda.memory._record_memory_history(max_entries=2_000_000, context=None, stacks="python")
oom = None
try:
    {"transformer": transformer, "cnn": cnn, "detection": detection, "two_streams": two_streams, "graphs": graphs, "frag": frag}[name]()
    torch.cuda.synchronize()
except torch.OutOfMemoryError as e:
    oom = str(e).splitlines()[0]
stats = torch.cuda.memory_stats()
conf = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
base = f"{name}-{(conf or 'default').replace(':', '_').replace(',', '__')}" + (f"-cap{cap_mib}" if cap_mib else "") + (f"-{tag}" if tag else "")
result = {"workload": name, "alloc_conf": conf, "cap_bytes": cap_mib * MiB if cap_mib else None, "oom": oom is not None, "oom_message": oom, "reserved_peak": stats["reserved_bytes.all.peak"], "allocated_peak": stats["allocated_bytes.all.peak"], "requested_peak": stats["requested_bytes.all.peak"], "allocated_end": stats["allocated_bytes.all.current"], "reserved_end": stats["reserved_bytes.all.current"], "total_memory": total, "torch": torch.__version__, "device": torch.cuda.get_device_name(0)}
torch.cuda.memory._dump_snapshot(os.path.join(out, base + ".pickle"))
torch.cuda.memory._record_memory_history(enabled=None)
with open(os.path.join(out, base + ".json"), "w") as f:
    json.dump(result, f, indent=1)
print(json.dumps(result))
