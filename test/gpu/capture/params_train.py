"""Two models trained a few steps on the GPU, for test/gpu/params.gpu.test.ts under `headroom run`:
an HF GPT-2 (random weights saved, then loaded with from_pretrained; tied embeddings) with AdamW, then a ResNet (timm's when installed, else
torchvision's) with SGD and momentum. The truth, from the script itself and independent of
Headroom: right after each optimizer step, every parameter's name (named_parameters()) and the CUDA
storage (address, bytes) of the parameter, its .grad and each tensor of its optimizer state.
Usage: python params_train.py TRUTH_JSON [STEPS]"""
import json
import sys
import tempfile
import time

import torch

STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 3


def now():
    return time.time_ns() // 1000


def where(t):
    s = t.untyped_storage()
    return [s.data_ptr(), s.nbytes()]


def observe(model, opt):
    out = []
    for name, p in model.named_parameters():
        out.append({"name": name, "kind": "parameter", "key": None, "at": where(p)})
        if p.grad is not None:
            out.append({"name": name, "kind": "gradient", "key": None, "at": where(p.grad)})
        for k, v in opt.state.get(p, {}).items():
            if isinstance(v, torch.Tensor) and v.is_cuda:
                out.append({"name": name, "kind": "optimizer_state", "key": str(k), "at": where(v)})
    return out


def train(label, model, opt, batch, loss_of):
    rec = {"model": label, "names": [n for n, _ in model.named_parameters()], "start": now(), "steps": []}
    for _ in range(STEPS):
        loss = loss_of(model, batch())
        loss.backward()
        opt.step()
        rec["steps"].append({"t": now(), "tensors": observe(model, opt)})
        opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    rec["end"] = now()
    return rec


def gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel

    # Saved, then loaded as a user loads a checkpoint: from_pretrained builds the modules (on the meta
    # device) before it puts the loaded Parameters in.
    with tempfile.TemporaryDirectory() as d:
        GPT2LMHeadModel(GPT2Config(vocab_size=8192, n_positions=256, n_embd=512, n_layer=6, n_head=8)).save_pretrained(d)
        model = GPT2LMHeadModel.from_pretrained(d).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    batch = lambda: torch.randint(0, 8192, (8, 256), device="cuda")  # noqa: E731
    return train("gpt2", model, opt, batch, lambda m, x: m(input_ids=x, labels=x).loss)


def resnet():
    try:
        import timm

        model, label = timm.create_model("resnet18", pretrained=False, num_classes=100), "timm resnet18"
    except ImportError:
        import torchvision

        model, label = torchvision.models.resnet18(num_classes=100), "torchvision resnet18"
    model = model.cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    batch = lambda: (torch.randn(32, 3, 160, 160, device="cuda"), torch.randint(0, 100, (32,), device="cuda"))  # noqa: E731
    return train(label, model, opt, batch, lambda m, b: torch.nn.functional.cross_entropy(m(b[0]), b[1]))


def main(out):
    torch.manual_seed(0)
    runs = [gpt2()]
    torch.cuda.empty_cache()
    runs.append(resnet())
    with open(out, "w") as f:
        json.dump({"runs": runs}, f)
    print("trained", ", ".join(r["model"] for r in runs))


if __name__ == "__main__":
    main(sys.argv[1])
