"""A nanoGPT-style loop with AMP (bf16) and a GradScaler-free AdamW, for `python -m torch_headroom`
(argv: none; the launcher is the entry point)."""
import torch
import torch.nn as nn

from common import deterministic, report


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


def main():
    deterministic()
    vocab, d, seq = 4096, 512, 256
    model = nn.Sequential(nn.Embedding(vocab, d), *[Block(d, 8) for _ in range(4)], nn.LayerNorm(d), nn.Linear(d, vocab)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    g = torch.Generator(device="cuda").manual_seed(1)
    for _ in range(8):
        x = torch.randint(0, vocab, (16, seq + 1), device="cuda", generator=g)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = nn.functional.cross_entropy(model(x[:, :-1]).flatten(0, 1), x[:, 1:].flatten())
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    report(loss, model)


if __name__ == "__main__":
    main()
