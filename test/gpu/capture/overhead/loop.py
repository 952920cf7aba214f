"""A launch-bound nanoGPT-style loop (the overhead issue's configuration): 6 layers x 384, block 256,
batch 64, 2 micro-steps, dropout 0.1, char-level vocabulary, random data, AdamW, bf16 autocast.
Prints one JSON line with the per-iteration times (synchronized each iteration) and the process's CPU
time in each (all threads: the agent's too; time taken by other processes on a shared host is not in
it), the loss and
PyTorch's own peak figures. `--gpu-bound` makes the model wide enough that kernels dominate.

PROBE_RECORD (no Headroom involved) turns PyTorch's recorder on in-process, to cost its parts:
  full   _record_memory_history('all', context='alloc', stacks='python')
  trace  the same with context=None (trace entries, no stacks)
  state  enabled='state' (stacks of live blocks, no trace)
  window full for the first PROBE_WINDOW iterations, then off
  early  full from CUDA's initialization (a torch.cuda._lazy_call, as Headroom's agent does)
"""
import json
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, heads, dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.fc_proj = nn.Linear(4 * d, d)
        self.drop = nn.Dropout(dropout)
        self.heads = heads

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.attn(self.ln_1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=self.drop.p if self.training else 0.0)
        x = x + self.drop(self.proj(y.transpose(1, 2).contiguous().view(b, t, d)))
        return x + self.drop(self.fc_proj(F.gelu(self.fc(self.ln_2(x)))))


class GPT(nn.Module):
    def __init__(self, vocab, ctx, d, layers, heads, dropout):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(ctx, d)
        self.drop = nn.Dropout(dropout)
        self.h = nn.ModuleList(Block(d, heads, dropout) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx, targets):
        x = self.drop(self.wte(idx) + self.wpe(torch.arange(idx.shape[1], device=idx.device)))
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1))


def train_step(run, model, opt, g, vocab, batch, ctx):
    """One optimizer step of two micro-batches of random tokens: the work every mode times. Returns the loss."""
    for _ in range(2):
        x = torch.randint(0, vocab, (batch, ctx + 1), device="cuda", generator=g)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = run(x[:, :-1], x[:, 1:]) / 2
        loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss.item()


def arg(name, default):
    return type(default)(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def main():
    iters = arg("--iters", 200)
    gpu_bound = "--gpu-bound" in sys.argv
    d, layers, heads, batch, ctx, vocab = (1024, 8, 16, 8, 1024, 32768) if gpu_bound else (384, 6, 6, 64, 256, 65)
    probe = os.environ.get("PROBE_RECORD", "")
    if probe == "early":
        # As the agent does: on from CUDA's initialization, before the model exists.
        torch.cuda._lazy_call(lambda: torch.cuda.memory._record_memory_history("all", context="alloc", stacks="python", max_entries=2_000_000))
    torch.manual_seed(0)
    model = GPT(vocab, ctx, d, layers, heads, 0.1).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    run = torch.compile(model) if "--compile" in sys.argv else model
    window = int(os.environ.get("PROBE_WINDOW", "5"))
    mem = torch.cuda.memory
    if probe in ("full", "window"):
        mem._record_memory_history("all", context="alloc", stacks="python", max_entries=2_000_000)
    elif probe == "trace":
        mem._record_memory_history("all", context=None, stacks="python", max_entries=2_000_000)
    elif probe == "state":
        mem._record_memory_history("state", context="alloc", stacks="python")
    times, cpu, losses = [], [], []
    g = torch.Generator(device="cuda").manual_seed(1)
    for it in range(iters):
        if probe == "window" and it == window:
            mem._record_memory_history(None)
        t0, c0 = time.perf_counter(), time.process_time()
        losses.append(train_step(run, model, opt, g, vocab, batch, ctx))
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    stats = torch.cuda.memory_stats()
    out = {"times": times, "cpu": cpu, "loss": losses[-1], "requested_peak": stats["requested_bytes.all.peak"], "allocated_peak": stats["allocated_bytes.all.peak"]}
    if os.environ.get("PROBE_SNAPSHOT"):
        s = mem._snapshot()
        blocks = [b for seg in s["segments"] for b in seg["blocks"] if b["state"] == "active_allocated"]
        out["snapshot"] = {"trace": sum(len(t) for t in s["device_traces"]), "active_blocks": len(blocks), "blocks_with_frames": sum(1 for b in blocks if b.get("frames"))}
    print("PROBE " + json.dumps(out))


if __name__ == "__main__":
    main()
