"""OOMs as users meet them, left uncaught so PyTorch prints its message to stderr: each mode is a
real cause (python3 oom_messages.py MODE). Run under `headroom run`, the snapshot taken at the OOM
is the evidence the message's reading is checked against (test/gpu/oomMessages.gpu.test.ts)."""
import os
import sys

import torch

MiB = 1 << 20
GiB = 1 << 30
mode = sys.argv[1]
total = torch.cuda.get_device_properties(0).total_memory


def frag():
    # Holes inside one segment under a cap: 15 × 50 MiB free, a 200 MiB request fits none.
    torch.cuda.set_per_process_memory_fraction((1536 + 100) * MiB / total)
    big = torch.empty(1536 * MiB, dtype=torch.uint8, device="cuda")
    del big
    chunks = [torch.empty(50 * MiB, dtype=torch.uint8, device="cuda") for _ in range(30)]
    keep = chunks[::2]
    del chunks
    torch.empty(200 * MiB, dtype=torch.uint8, device="cuda")
    return keep


def cap():
    # A 4 GiB limit on an 80 GiB device: the third 1.5 GiB tensor is refused with the device free.
    torch.cuda.set_per_process_memory_fraction(4 * GiB / total)
    return [torch.empty(1536 * MiB, dtype=torch.uint8, device="cuda") for _ in range(3)]


def demand():
    # Training an MLP whose activations outgrow the device as the batch doubles (GELUs keep each
    # layer's input and output: cheap to compute, heavy to hold).
    model = torch.nn.Sequential(*[m for _ in range(16) for m in (torch.nn.Linear(512, 512), torch.nn.GELU())]).cuda()
    rows = 16384
    while True:
        loss = model(torch.randn(rows, 512, device="cuda")).square().mean()
        loss.backward()
        rows *= 2


def huge():
    # A shape gone wrong: twice the device in one tensor.
    return torch.empty(2 * total, dtype=torch.uint8, device="cuda")


def hf_trainer():
    # Hugging Face Trainer on a GPT-2 config (no download) with a batch too large for the device.
    from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

    class Random(torch.utils.data.Dataset):
        def __len__(self):
            return 4096

        def __getitem__(self, i):
            ids = torch.randint(0, 50257, (1024,))
            return {"input_ids": ids, "labels": ids}

    model = GPT2LMHeadModel(GPT2Config(n_layer=12))
    args = TrainingArguments(output_dir=os.environ.get("TMPDIR", "/tmp") + "/hf-oom", per_device_train_batch_size=int(os.environ.get("BATCH", "256")), max_steps=2, report_to=[], save_strategy="no", logging_strategy="no")
    Trainer(model=model, args=args, train_dataset=Random()).train()


{"frag": frag, "cap": cap, "demand": demand, "huge": huge, "hf_trainer": hf_trainer}[mode]()
print("no OOM", file=sys.stderr)
sys.exit(3)
