"""The leak-detection issue's loops (test/gpu/capture/leaks.py), each a whole process recorded by
`headroom run` in its default mode (recording windows), after a clean warm-up of 20 steps long
enough for the first window to close. argv: CASE
  leak_append       outs.append(out) in the training loop (12 iterations)
  total_loss_train  total_loss += loss after backward (12 iterations)
  total_loss_eval   an eval loop without no_grad, total_loss += loss (12 iterations)
  clean_train       the same training loop, nothing kept (50 iterations)"""
import sys

import torch

torch.manual_seed(0)
WIDTH, BATCH, CLASSES = 1024, 64, 1000
model = torch.nn.Sequential(torch.nn.Linear(WIDTH, WIDTH), torch.nn.ReLU(), torch.nn.Linear(WIDTH, WIDTH), torch.nn.ReLU(), torch.nn.Linear(WIDTH, CLASSES)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
data = [(torch.randn(BATCH, WIDTH, device="cuda"), torch.randint(0, CLASSES, (BATCH,), device="cuda")) for _ in range(4)]


def train(steps, keep_outputs=False, accumulate=False):
    outs, total_loss = [], 0.0
    for step in range(steps):
        x, y = data[step % len(data)]
        out = model(x)
        loss = torch.nn.functional.cross_entropy(out, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if keep_outputs:
            outs.append(out)
        if accumulate:
            total_loss += loss
    return outs, total_loss


def evaluate(steps):
    model.eval()
    total_loss = 0.0
    for step in range(steps):
        x, y = data[step % len(data)]
        out = model(x)
        loss = torch.nn.functional.cross_entropy(out, y)
        total_loss += loss
    model.train()
    return total_loss


if __name__ == "__main__":
    case = sys.argv[1]
    train(20)
    kept = {"leak_append": lambda: train(12, keep_outputs=True), "total_loss_train": lambda: train(12, accumulate=True), "total_loss_eval": lambda: evaluate(12), "clean_train": lambda: train(50)}[case]()
    torch.cuda.synchronize()
    print("done", case)
