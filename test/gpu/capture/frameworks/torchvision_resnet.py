"""torchvision's ResNet-50 (its own model code), AMP bf16, SGD, random images: a model we did not write."""
import torch
import torchvision


def main():
    torch.manual_seed(0)
    model = torchvision.models.resnet50(num_classes=100).cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(4):
        x = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
        y = torch.randint(0, 100, (64,), device="cuda")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)


if __name__ == "__main__":
    main()
