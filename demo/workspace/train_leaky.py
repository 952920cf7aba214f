"""A small classifier with two classic GPU-memory leaks in its evaluation loop.

Run it with Headroom and watch the memory climb during `evaluate`: every batch's graph and logits
stay alive until the function returns.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def make_model():
    return nn.Sequential(
        nn.Linear(512, 2048),
        nn.ReLU(),
        nn.Linear(2048, 2048),
        nn.ReLU(),
        nn.Linear(2048, 100),
    ).cuda()


def make_batches(n):
    return [(torch.randn(256, 512, device="cuda"), torch.randint(0, 100, (256,), device="cuda")) for _ in range(n)]


def train(model, opt, batches):
    for x, y in batches:
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)


def evaluate(model, batches):
    model.eval()
    total_loss = 0
    outputs = []
    for x, y in batches:
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        total_loss += loss  # keeps every batch's autograd graph alive
        outputs.append(logits)  # keeps every batch's logits (and their graph) on the GPU
    return total_loss / len(batches), outputs


def main():
    torch.manual_seed(0)
    model = make_model()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    train(model, opt, make_batches(8))
    val_loss, outputs = evaluate(model, make_batches(32))
    print(f"val loss {val_loss.item():.3f} over {len(outputs)} batches")


if __name__ == "__main__":
    main()
