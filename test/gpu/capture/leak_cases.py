"""The training loops of leak_matrix.py. Each calls boundary() once per step (after the optimizer
step; per batch in an eval loop) and returns None (clean) or {"bytes": kept per step, "line": name}
where here(name) marked the line that creates what is kept."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, 8, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class LM(nn.Module):
    def __init__(self, d=256, layers=6, vocab=4096, ckpt=(1, 3)):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d) for _ in range(layers))
        self.head = nn.Linear(d, vocab)
        self.ckpt = set(ckpt)

    def forward(self, idx):
        x = self.emb(idx)
        for i, block in enumerate(self.blocks):
            x = checkpoint(block, x, use_reentrant=False) if i in self.ckpt else block(x)
        return self.head(x)


def lm_steps(boundary, steps, compiled=False, accumulate=1):
    model = LM().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    fwd = torch.compile(model) if compiled else model
    for _ in range(steps):
        for _ in range(accumulate):
            idx = torch.randint(0, 4096, (16, 128), device="cuda")
            with torch.autocast("cuda", dtype=torch.bfloat16):
                logits = fwd(idx)
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)).float(), idx.view(-1)) / accumulate
            loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        boundary()


def gan(boundary, steps=16):
    G = nn.Sequential(nn.Linear(128, 1024), nn.ReLU(), nn.Linear(1024, 784)).cuda()
    D = nn.Sequential(nn.Linear(784, 1024), nn.LeakyReLU(0.2), nn.Linear(1024, 1)).cuda()
    og, od = torch.optim.Adam(G.parameters(), 2e-4), torch.optim.Adam(D.parameters(), 2e-4)
    for _ in range(steps):
        real = torch.randn(64, 784, device="cuda")
        fake = G(torch.randn(64, 128, device="cuda"))
        d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake.detach())).mean()
        od.zero_grad(set_to_none=True)
        d_loss.backward()
        od.step()
        g_loss = F.softplus(-D(fake)).mean()
        og.zero_grad(set_to_none=True)
        g_loss.backward()
        og.step()
        boundary()


def mlp_train(boundary, steps, keep=None, here=None):
    """keep: 'bytes' keeps each step's loss (4 B), 'kib' 64×10 logits (2,560 B), 'mib' a 1 MiB activation."""
    model = nn.Sequential(nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    history = []
    for _ in range(steps):
        x = torch.randn(256, 1024, device="cuda")
        h = model[1](model[0](x)); here and here("mib")  # noqa: E702  (what the 'mib' case keeps)
        out = model[2:](h)
        loss = F.cross_entropy(out, torch.randint(0, 10, (256,), device="cuda"))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if keep == "bytes":
            history.append(loss.detach().clone()); here("bytes")  # noqa: E702
        elif keep == "kib":
            history.append(out[:64].detach().clone()); here("kib")  # noqa: E702
        elif keep == "mib":
            history.append(h.detach())
        boundary()
    return history


def eval_only(boundary, batches=24):
    model = LM(ckpt=()).cuda().eval()
    with torch.no_grad():
        for _ in range(batches):
            logits = model(torch.randint(0, 4096, (16, 128), device="cuda"))
            logits.argmax(-1)
            boundary()


def cache_plateau(boundary, steps=30):
    """A per-shape workspace cache: six shapes, one new each step at first, then nothing new."""
    model = nn.Linear(1024, 1024).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    cache = {}
    for step in range(steps):
        n = 64 * (1 + min(step, 5))
        if n not in cache:
            cache[n] = torch.empty(n, 1024, device="cuda")
        buf = cache[n]
        buf.normal_()
        model(buf).square().mean().backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        boundary()


def hf_trainer(boundary, steps=14):
    from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainerCallback, TrainingArguments

    class Data(torch.utils.data.Dataset):
        def __len__(self):
            return 10_000

        def __getitem__(self, i):
            ids = torch.randint(0, 1000, (128,))
            return {"input_ids": ids, "labels": ids}

    class Boundary(TrainerCallback):
        def on_step_end(self, args, state, control, **kw):
            boundary()

    model = GPT2LMHeadModel(GPT2Config(vocab_size=1000, n_positions=128, n_embd=256, n_layer=6, n_head=8))
    args = TrainingArguments(output_dir="/tmp/hf_leak_matrix", max_steps=steps, per_device_train_batch_size=16, bf16=True, gradient_checkpointing=True, report_to=[], save_strategy="no", logging_strategy="no", dataloader_num_workers=0, disable_tqdm=True)
    Trainer(model=model, args=args, train_dataset=Data(), callbacks=[Boundary()]).train()


def lightning(boundary, steps=14, keep_in_hook=False, here=None):
    import pytorch_lightning as pl

    class Module(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(*[nn.Sequential(nn.Linear(512, 512), nn.ReLU()) for _ in range(4)], nn.Linear(512, 10))
            self.kept = []

        def training_step(self, batch, i):
            x, y = batch
            self.last_hidden = self.net[:4](x); here and here("hook")  # noqa: E702  (what the hook keeps)
            return F.cross_entropy(self.net[4](self.last_hidden), y)

        def on_train_batch_end(self, outputs, batch, batch_idx):
            if keep_in_hook:
                self.kept.append(self.last_hidden.detach())
            boundary()

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.01)

    data = torch.utils.data.TensorDataset(torch.randn(256 * steps, 512), torch.randint(0, 10, (256 * steps,)))
    trainer = pl.Trainer(accelerator="gpu", devices=1, max_steps=steps, logger=False, enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(Module(), torch.utils.data.DataLoader(data, batch_size=256))


def run_case(case, boundary, here):
    if case == "transformer_eager":
        return lm_steps(boundary, 12)
    if case == "transformer_compiled":
        return lm_steps(boundary, 24, compiled=True)
    if case == "grad_accum":
        return lm_steps(boundary, 12, accumulate=4)
    if case == "gan":
        return gan(boundary)
    if case == "hf_trainer":
        return hf_trainer(boundary)
    if case == "lightning":
        return lightning(boundary)
    if case == "eval_only":
        return eval_only(boundary)
    if case == "cache_plateau":
        return cache_plateau(boundary)
    if case == "leak_bytes":
        mlp_train(boundary, 30, "bytes", here)
        return {"bytes": 4, "line": "bytes"}
    if case == "leak_kib":
        mlp_train(boundary, 20, "kib", here)
        return {"bytes": 64 * 10 * 4, "line": "kib"}
    if case == "leak_mib":
        mlp_train(boundary, 16, "mib", here)
        return {"bytes": 256 * 1024 * 4, "line": "mib"}
    if case == "leak_lightning_hook":
        lightning(boundary, 16, keep_in_hook=True, here=here)
        return {"bytes": 256 * 512 * 4, "line": "hook"}
    raise SystemExit("unknown case %s" % case)
