"""Training workloads for the batch / sequence / checkpointing predictions (issue: will it fit?):
python3 workloads.py NAME OUT --batch B [--seq S] [--ckpt] [--cap-mib N]. Each trains 3 steps from
a config (random data), recorded from the first CUDA allocation by PyTorch's recorder with its
defaults (context='alloc' with --ckpt: torch 2.11 breaks backward through non-reentrant
checkpointing with 'all'); OUT/NAME-bB[-sS][-ckpt][-capN].pickle and .json (PyTorch's own figures)."""
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

MiB = 1 << 20
STEPS = 3


def flag(name, default=None):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


name, out = sys.argv[1], sys.argv[2]
batch = int(flag("--batch"))
seq = int(flag("--seq")) if flag("--seq") else None
ckpt = "--ckpt" in sys.argv
cap_mib = int(flag("--cap-mib")) if flag("--cap-mib") else None
dev = "cuda"
torch.manual_seed(0)
torch.backends.cudnn.benchmark = False


def loop(model, opt, make, amp=None):
    for _ in range(STEPS):
        x, y = make()
        with torch.autocast("cuda", dtype=amp, enabled=amp is not None):
            loss = F.cross_entropy(model(x).flatten(0, -2) if y.dim() > 1 else model(x), y.flatten())
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)


class Block(nn.Module):
    """A nanoGPT block with attention written out (softmax over T×T: memory quadratic in T)."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(B, T, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        att = (q @ k.transpose(-2, -1)) * (k.size(-1) ** -0.5)
        att = att.masked_fill(torch.ones(T, T, device=x.device, dtype=torch.bool).triu(1), float("-inf")).softmax(-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(B, T, C))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, vocab=8192, d=512, layers=8, heads=8, ctx=1024):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.size(1), device=idx.device))
        for b in self.blocks:
            x = torch.utils.checkpoint.checkpoint(b, x, use_reentrant=False) if ckpt else b(x)
        return self.head(self.ln(x))


def gpt():
    T = seq or 256
    model = GPT().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    loop(model, opt, lambda: (torch.randint(0, 8192, (batch, T), device=dev), torch.randint(0, 8192, (batch, T), device=dev)), torch.bfloat16)


def t5():
    from transformers import T5Config, T5ForConditionalGeneration

    T = seq or 128
    cfg = T5Config(vocab_size=8192, d_model=256, d_kv=32, d_ff=1024, num_layers=4, num_decoder_layers=4, num_heads=8, pad_token_id=0, eos_token_id=1, decoder_start_token_id=0)
    model = T5ForConditionalGeneration(cfg).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for _ in range(STEPS):
        src = torch.randint(2, 8192, (batch, T), device=dev)
        model(input_ids=src, attention_mask=torch.ones_like(src), labels=torch.randint(2, 8192, (batch, T // 4), device=dev)).loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)


def vit():
    import timm

    model = timm.create_model("vit_small_patch16_224", pretrained=False, num_classes=100, img_size=128, depth=6).to(dev)
    model.set_grad_checkpointing(ckpt)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loop(model, opt, lambda: (torch.randn(batch, 3, 128, 128, device=dev), torch.randint(0, 100, (batch,), device=dev)), torch.bfloat16)


def resnet():
    import torchvision

    model = torchvision.models.resnet50(weights=None, num_classes=100).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loop(model, opt, lambda: (torch.randn(batch, 3, 128, 128, device=dev), torch.randint(0, 100, (batch,), device=dev)))


def detection():
    import torchvision

    model = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_fpn(weights=None, weights_backbone=None, num_classes=5).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.001)
    box = [[10.0, 20.0, 100.0, 120.0], [50.0, 60.0, 200.0, 180.0]]
    for _ in range(STEPS):
        images = [torch.rand(3, 320, 320, device=dev) for _ in range(batch)]
        targets = [{"boxes": torch.tensor(box, device=dev), "labels": torch.tensor([1, 2], device=dev)} for _ in images]
        sum(model(images, targets).values()).backward()
        opt.step()
        opt.zero_grad(set_to_none=True)


def lightning():
    import lightning.pytorch as pl
    from torch.utils.data import DataLoader, TensorDataset

    T = seq or 128

    class Encoder(pl.LightningModule):
        def __init__(self, d=384):
            super().__init__()
            self.emb = nn.Embedding(8192, d)
            self.body = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, 6, 4 * d, batch_first=True, norm_first=True), 4, enable_nested_tensor=False)
            self.head = nn.Linear(d, 8192)

        def training_step(self, b, _):
            return F.cross_entropy(self.head(self.body(self.emb(b[0]))).flatten(0, 1), b[1].flatten())

        def configure_optimizers(self):
            return torch.optim.AdamW(self.parameters(), lr=3e-4)

    data = TensorDataset(torch.randint(0, 8192, (batch * STEPS, T)), torch.randint(0, 8192, (batch * STEPS, T)))
    trainer = pl.Trainer(accelerator="gpu", devices=1, max_steps=STEPS, precision="bf16-mixed", logger=False, enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(Encoder(), DataLoader(data, batch_size=batch))


WORKLOADS = {"gpt": gpt, "t5": t5, "vit": vit, "resnet": resnet, "detection": detection, "lightning": lightning}

if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    from heldout import HELDOUT  # noqa: E402  (held out: never looked at while the model was tuned)

    work = {**WORKLOADS, **HELDOUT}[name]
    base = f"{name}-b{batch}" + (f"-s{seq}" if seq else "") + ("-ckpt" if ckpt else "") + (f"-cap{cap_mib}" if cap_mib else "")
    total = torch.cuda.get_device_properties(0).total_memory
    if cap_mib:
        torch.cuda.set_per_process_memory_fraction(cap_mib * MiB / total)
    torch.cuda.memory._record_memory_history(max_entries=2_000_000, **({"context": "alloc"} if ckpt else {}))
    oom = None
    try:
        work()
        torch.cuda.synchronize()
    except torch.OutOfMemoryError as e:
        oom = str(e).splitlines()[0]
    stats = torch.cuda.memory_stats()
    result = {"workload": name, "batch": batch, "seq": seq, "ckpt": ckpt, "cap_bytes": cap_mib * MiB if cap_mib else None, "oom": oom is not None, "oom_message": oom, "requested_peak": stats["requested_bytes.all.peak"], "allocated_peak": stats["allocated_bytes.all.peak"], "reserved_peak": stats["reserved_bytes.all.peak"], "total_memory": total, "torch": torch.__version__, "device": torch.cuda.get_device_name(0)}
    torch.cuda.memory._dump_snapshot(os.path.join(out, base + ".pickle"))
    with open(os.path.join(out, base + ".json"), "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result))
