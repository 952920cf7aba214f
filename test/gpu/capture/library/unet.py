"""A small diffusion UNet from torch.nn blocks (timestep-conditioned ResNet blocks, down/up
sampling, skips, self-attention), noise-prediction MSE, fp16 AMP with a GradScaler.
Usage: python unet.py [--plain OUT.pickle]"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from common import parse, run


class ResBlock(nn.Module):
    def __init__(self, cin, cout, tdim):
        super().__init__()
        self.norm1, self.conv1 = nn.GroupNorm(32, cin), nn.Conv2d(cin, cout, 3, padding=1)
        self.temb = nn.Linear(tdim, cout)
        self.norm2, self.conv2 = nn.GroupNorm(32, cout), nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x, t):
        h = self.conv1(F.silu(self.norm1(x))) + self.temb(F.silu(t))[:, :, None, None]
        return self.skip(x) + self.conv2(F.silu(self.norm2(h)))


class Attention(nn.Module):
    def __init__(self, c, heads=4):
        super().__init__()
        self.norm, self.attn = nn.GroupNorm(32, c), nn.MultiheadAttention(c, heads, batch_first=True)

    def forward(self, x):
        b, c, h, w = x.shape
        s = self.norm(x).flatten(2).transpose(1, 2)
        return x + self.attn(s, s, s, need_weights=False)[0].transpose(1, 2).reshape(b, c, h, w)


class UNet(nn.Module):
    def __init__(self, ch=(64, 128, 256), tdim=64):
        super().__init__()
        self.tdim, t4, c = tdim, 4 * tdim, ch[0]
        self.time = nn.Sequential(nn.Linear(tdim, t4), nn.SiLU(), nn.Linear(t4, t4))
        self.inp = nn.Conv2d(3, ch[0], 3, padding=1)
        self.down, self.pool, self.up, self.grow = (nn.ModuleList() for _ in range(4))
        for i, co in enumerate(ch):
            self.down.append(ResBlock(c, co, t4))
            self.pool.append(nn.Conv2d(co, co, 3, stride=2, padding=1) if i < len(ch) - 1 else nn.Identity())
            c = co
        self.mid1, self.mid_attn, self.mid2 = ResBlock(c, c, t4), Attention(c), ResBlock(c, c, t4)
        for i in reversed(range(len(ch))):
            self.up.append(ResBlock(c + ch[i], ch[i], t4))
            self.grow.append(nn.Upsample(scale_factor=2, mode="nearest") if i > 0 else nn.Identity())
            c = ch[i]
        self.out = nn.Sequential(nn.GroupNorm(32, c), nn.SiLU(), nn.Conv2d(c, 3, 3, padding=1))

    def forward(self, x, t):
        half = self.tdim // 2  # sinusoidal timestep features
        a = t.float()[:, None] * torch.exp(-math.log(1e4) * torch.arange(half, device=t.device) / half)
        t = self.time(torch.cat([a.sin(), a.cos()], 1))
        h, skips = self.inp(x), []
        for block, pool in zip(self.down, self.pool):
            h = block(h, t)
            skips.append(h)
            h = pool(h)
        h = self.mid2(self.mid_attn(self.mid1(h, t)), t)
        for block, grow in zip(self.up, self.grow):
            h = grow(block(torch.cat([h, skips.pop()], 1), t))
        return self.out(h)


def train(args):
    torch.manual_seed(0)
    model = UNet().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-4)
    scaler = torch.amp.GradScaler("cuda")
    abar = torch.cumprod(1 - torch.linspace(1e-4, 0.02, 1000, device="cuda"), 0)
    for _ in range(5):
        x0 = torch.randn(32, 3, 64, 64, device="cuda")
        t = torch.randint(0, 1000, (32,), device="cuda")
        eps = torch.randn_like(x0)
        a = abar[t][:, None, None, None]
        xt = a.sqrt() * x0 + (1 - a).sqrt() * eps
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.mse_loss(model(xt, t).float(), eps)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)
    return model, opt


if __name__ == "__main__":
    run(train, parse())
