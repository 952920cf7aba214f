"""timm's ViT-S/16 (its own model code, random init, 128 px and 6 blocks to stay small) in a plain
loop under bf16 autocast. Usage: python timm_vit.py [--plain OUT.pickle]"""
import timm
import torch
import torch.nn.functional as F

from common import parse, run


def train(args):
    torch.manual_seed(0)
    m = timm.create_model("vit_small_patch16_224", pretrained=False, num_classes=100, img_size=128, depth=6).cuda()
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
    for _ in range(5):
        x = torch.randn(64, 3, 128, 128, device="cuda")
        y = torch.randint(0, 100, (64,), device="cuda")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(m(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return m, opt


if __name__ == "__main__":
    run(train, parse())
