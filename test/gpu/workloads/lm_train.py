"""A small GPT-style language model trained with AdamW: the GPU tests' workload.

--log FILE   after each step: {step, t (µs since epoch), allocated, reserved} as JSON lines, then a
             pause of --pause seconds with no allocation, so a live sample lands on exactly these
             figures. At the end, memory_stats()'s peaks and step times go to FILE.stats.json.
"""
import argparse
import json
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class LM(nn.Module):
    def __init__(self, vocab=8192, d=512, layers=6, heads=8, ctx=256):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, batch_first=True, norm_first=True)
        self.body = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d, vocab, bias=False)
        self.register_buffer("mask", torch.triu(torch.full((ctx, ctx), float("-inf")), 1), persistent=False)

    def forward(self, x):
        n = x.shape[1]
        h = self.tok(x) + self.pos(torch.arange(n, device=x.device))
        h = self.body(h, mask=self.mask[:n, :n], is_causal=True)
        return self.head(h)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--log")
    ap.add_argument("--pause", type=float, default=0.0)
    a = ap.parse_args()
    torch.manual_seed(0)
    model = LM().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    log = open(a.log, "w") if a.log else None
    times = []
    for step in range(a.steps):
        x = torch.randint(0, 8192, (a.batch, 257), device="cuda")
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        logits = model(x[:, :-1])
        loss = F.cross_entropy(logits.flatten(0, 1), x[:, 1:].flatten())
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        del logits, loss, x
        if log:
            log.write(json.dumps({"step": step, "t": time.time_ns() // 1000, "allocated": torch.cuda.memory_allocated(), "reserved": torch.cuda.memory_reserved()}) + "\n")
            log.flush()
            time.sleep(a.pause)
    if a.log:
        s = torch.cuda.memory_stats()
        with open(a.log + ".stats.json", "w") as f:
            json.dump(
                {
                    "requested_bytes_peak": s["requested_bytes.all.peak"],
                    "max_memory_allocated": s["allocated_bytes.all.peak"],
                    "max_memory_reserved": s["reserved_bytes.all.peak"],
                    "step_times": times,
                    "loss_finite": math.isfinite(float(loss_value(model))),
                },
                f,
            )
    print("trained %d steps, median step %.1f ms" % (a.steps, 1000 * sorted(times)[len(times) // 2]))


def loss_value(model):
    with torch.no_grad():
        x = torch.randint(0, 8192, (2, 65), device="cuda")
        return F.cross_entropy(model(x[:, :-1]).flatten(0, 1), x[:, 1:].flatten()).item()


if __name__ == "__main__":
    main()
