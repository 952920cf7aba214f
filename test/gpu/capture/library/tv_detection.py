"""torchvision's Faster R-CNN (MobileNetV3-Large FPN, no weights) in train mode: images of varying
sizes, random boxes and labels, the model returns its losses. Many small, shape-dependent
allocations (anchors, proposals, ROI sampling). Usage: python tv_detection.py [--plain OUT.pickle]"""
import torch
from torchvision.models.detection import fasterrcnn_mobilenet_v3_large_fpn

from common import parse, run


def batch(g, n=4):
    imgs, targets = [], []
    for _ in range(n):
        h, w = (int(v) for v in torch.randint(256, 480, (2,), generator=g))
        k = int(torch.randint(1, 6, (1,), generator=g))
        # Corners inside the image, each box at least 16 px wide and high.
        xy = torch.rand(k, 2, generator=g) * torch.tensor([0.6 * w, 0.6 * h])
        wh = 16 + torch.rand(k, 2, generator=g) * torch.tensor([0.3 * w, 0.3 * h])
        imgs.append(torch.rand(3, h, w, generator=g).cuda())
        targets.append({"boxes": torch.cat([xy, xy + wh], 1).cuda(), "labels": torch.randint(1, 5, (k,), generator=g).cuda()})
    return imgs, targets


def train(args):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    m = fasterrcnn_mobilenet_v3_large_fpn(weights=None, weights_backbone=None, num_classes=5, min_size=320, max_size=512).cuda().train()
    opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
    for _ in range(4):
        imgs, targets = batch(g)
        losses = m(imgs, targets)
        loss = sum(losses.values())
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return m, opt


if __name__ == "__main__":
    run(train, parse())
