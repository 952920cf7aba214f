"""Workloads of different shapes for the allocator what-if check (test/gpu/whatif.gpu.test.ts, run.sh):
python3 workloads.py NAME OUT [--cap-mib N] [--tag T]. Recorded by recording.py: OUT/NAME-<conf>[-capN][-T].pickle
and .json; PYTORCH_CUDA_ALLOC_CONF from the environment, --cap-mib a per-process memory fraction."""
import sys

import torch

from recording import MiB, record

name, out = sys.argv[1], sys.argv[2]
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
        # The block y used on both streams returns to its pool when the default stream's event
        # completes, noticed at the next allocation: synchronizing makes that moment the same in
        # every run (without it, the order of frees moves between identical runs: allocator-replay.md).
        torch.cuda.synchronize()


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


record(name, out, {"transformer": transformer, "cnn": cnn, "detection": detection, "two_streams": two_streams, "graphs": graphs, "frag": frag}[name])
