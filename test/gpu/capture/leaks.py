"""Four training/eval loops for the runtime leak detector, each dumped with the truth beside it:
memory_allocated() at the same point of every iteration (the true growth), and the line that
creates what is kept.
  leak_append:      outs.append(out) in a training loop (12 iterations): out's logits are kept;
  clean_train:      the same loop without it (50 iterations): nothing grows;
  total_loss_train: total_loss += loss after backward (12 iterations): only the graph's history;
  total_loss_eval:  an eval loop without no_grad, total_loss += loss (12 iterations): whole graphs."""
import inspect

import torch

from common import dump, record

torch.manual_seed(0)
WIDTH, BATCH, CLASSES = 1024, 64, 1000
model = torch.nn.Sequential(torch.nn.Linear(WIDTH, WIDTH), torch.nn.ReLU(), torch.nn.Linear(WIDTH, WIDTH), torch.nn.ReLU(), torch.nn.Linear(WIDTH, CLASSES)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
data = [(torch.randn(BATCH, WIDTH, device="cuda"), torch.randint(0, CLASSES, (BATCH,), device="cuda")) for _ in range(4)]
lines = {}


def here():
    return inspect.currentframe().f_back.f_lineno


def train(steps, keep_outputs=False, accumulate=False):
    outs, total_loss, allocated = [], 0.0, []
    for step in range(steps):
        x, y = data[step % len(data)]
        out = model(x); lines["out"] = here()  # noqa: E702  the line that creates what leak_append keeps
        loss = torch.nn.functional.cross_entropy(out, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if keep_outputs:
            outs.append(out)
        if accumulate:
            total_loss += loss; lines["acc_train"] = here()  # noqa: E702
        torch.cuda.synchronize()
        allocated.append(torch.cuda.memory_allocated())
    return allocated


def evaluate(steps):
    model.eval()
    total_loss, allocated = 0.0, []
    for step in range(steps):
        x, y = data[step % len(data)]
        out = model(x); lines["eval_out"] = here()  # noqa: E702
        loss = torch.nn.functional.cross_entropy(out, y)
        total_loss += loss; lines["acc_eval"] = here()  # noqa: E702
        torch.cuda.synchronize()
        allocated.append(torch.cuda.memory_allocated())
    model.train()
    return allocated


def capture(name, run):
    torch.cuda.empty_cache()
    record()
    allocated = run()
    warm = 2
    growth = (allocated[-1] - allocated[warm]) / (len(allocated) - 1 - warm)
    dump(name, {"iterations": len(allocated), "allocated_per_iteration": allocated, "true_growth_per_iteration": growth, "lines": dict(lines), "script": __file__}, memviz=False)
    torch.cuda.memory._record_memory_history(enabled=None)


if __name__ == "__main__":
    train(3)  # warm the caches and optimizer state before any recording
    capture("leak_append", lambda: train(12, keep_outputs=True))
    capture("clean_train", lambda: train(50))
    capture("total_loss_train", lambda: train(12, accumulate=True))
    capture("total_loss_eval", lambda: evaluate(12))
