"""GPU workloads Headroom must not harm (test/gpu/agent.gpu.test.ts). argv[1] is the case:

  dumps             trains a small transformer with a growing set of kept tensors (a new peak each
                    step, so with HEADROOM_PEAK_MARGIN=0 a peak snapshot is dumped at every step)
                    until killed; prints 'step N'
  compile           torch.compile of a small MLP, a few training steps
  spawn N LOG       torch.multiprocessing.spawn of N ranks (gloo) on one GPU; each logs its
                    requested_bytes.all.peak to LOG.rank<r>.json
  loader fork|spawn DataLoader(num_workers=4) with that start method; prints the losses
"""
import json
import os
import sys
import time

import torch
import torch.nn as nn


def block(d):
    return nn.TransformerEncoderLayer(d, 8, 4 * d, batch_first=True, dropout=0.0)


def dumps():
    torch.manual_seed(0)
    model = nn.Sequential(*[block(256) for _ in range(4)]).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    kept = []
    for step in range(100000):
        x = torch.randn(16, 128, 256, device="cuda")
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        kept.append(torch.empty(1 << 20, device="cuda"))
        print("step", step, flush=True)


def compile_case():
    torch.manual_seed(0)
    model = torch.compile(nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 512)).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    for step in range(5):
        loss = model(torch.randn(64, 512, device="cuda")).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
    print("compiled loss %.4f" % loss.item(), flush=True)


def rank_main(rank, n, port, log):
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank, world_size=n)
    torch.manual_seed(rank)
    model = nn.Linear(1024, 1024 * (rank + 1)).cuda()
    for _ in range(3):
        model(torch.randn(256, 1024, device="cuda")).sum().backward()
    torch.cuda.synchronize()
    with open("%s.rank%d.json" % (log, rank), "w") as f:
        json.dump({"rank": rank, "requested_bytes_peak": torch.cuda.memory_stats()["requested_bytes.all.peak"]}, f)
    dist.barrier()
    dist.destroy_process_group()


def spawn(n, log):
    import socket

    import torch.multiprocessing as mp

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(rank_main, args=(int(n), port, log), nprocs=int(n))
    print("spawned", n, flush=True)


class Data(torch.utils.data.Dataset):
    def __len__(self):
        return 256

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.randn(64, generator=g), torch.randn(1, generator=g)


def loader(method):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 1)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-2)
    dl = torch.utils.data.DataLoader(Data(), batch_size=32, num_workers=4, multiprocessing_context=method)
    for epoch in range(2):
        for x, y in dl:
            loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
            loss.backward()
            opt.step()
            opt.zero_grad()
        print("epoch", epoch, "loss %.5f" % loss.item(), flush=True)


if __name__ == "__main__":
    case = sys.argv[1]
    if case == "dumps":
        dumps()
    elif case == "compile":
        compile_case()
    elif case == "spawn":
        spawn(sys.argv[2], sys.argv[3])
    elif case == "loader":
        loader(sys.argv[2])
