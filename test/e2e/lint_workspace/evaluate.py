"""A validation loop with the classic leak: the loss is summed with its graph, without no_grad."""
import torch
import torch.nn.functional as F


def evaluate(model, loader):
    model.eval()
    total_loss = 0.0
    for x, y in loader:
        out = model(x.cuda())
        loss = F.cross_entropy(out, y.cuda())
        total_loss += loss
    return total_loss / len(loader)
