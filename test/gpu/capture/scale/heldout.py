"""Held-out workloads for the batch predictions: other models and other code than workloads.py's,
recorded in the same run but never looked at while the model was tuned; measured once
(docs/scale-prediction.md). Imported by workloads.py, which reads the flags and records."""
import sys

import torch
import torch.nn.functional as F

STEPS = 3
dev = "cuda"


def _flag(name):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else None


def _lm(model, T, amp):
    b = _flag("--batch")
    model = model.to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for _ in range(STEPS):
        ids = torch.randint(0, 8192, (b, T), device=dev)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)


def llama():
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = LlamaConfig(vocab_size=8192, hidden_size=512, intermediate_size=1376, num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=4, max_position_embeddings=1024)
    _lm(LlamaForCausalLM(cfg), _flag("--seq") or 256, True)


def bert():
    from transformers import BertConfig, BertForMaskedLM

    cfg = BertConfig(vocab_size=8192, hidden_size=256, num_hidden_layers=4, num_attention_heads=4, intermediate_size=1024)
    _lm(BertForMaskedLM(cfg), _flag("--seq") or 128, False)


def _images(model, side, amp, opt_cls):
    b = _flag("--batch")
    model = model.to(dev)
    opt = opt_cls(model.parameters())
    for _ in range(STEPS):
        x, y = torch.randn(b, 3, side, side, device=dev), torch.randint(0, 100, (b,), device=dev)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=False)  # grads kept (zeroed in place)


def convnext():
    import timm

    _images(timm.create_model("convnext_tiny", pretrained=False, num_classes=100), 128, True, lambda p: torch.optim.AdamW(p, lr=1e-3))


def mobilenet():
    import torchvision

    _images(torchvision.models.mobilenet_v3_large(weights=None, num_classes=100), 160, False, lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9))


def hf_trainer():
    from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

    b, T = _flag("--batch"), _flag("--seq") or 256

    class Tokens(torch.utils.data.Dataset):
        def __len__(self):
            return b * STEPS

        def __getitem__(self, i):
            x = torch.randint(0, 8192, (T,), generator=torch.Generator().manual_seed(i))
            return {"input_ids": x, "labels": x}

    model = GPT2LMHeadModel(GPT2Config(vocab_size=8192, n_positions=1024, n_embd=512, n_layer=4, n_head=8))
    args = TrainingArguments(output_dir="/tmp/scale_hf", per_device_train_batch_size=b, max_steps=STEPS, bf16=True, report_to=[], save_strategy="no", logging_steps=100, disable_tqdm=True, dataloader_num_workers=0)
    Trainer(model=model, args=args, train_dataset=Tokens()).train()


HELDOUT = {"llama": llama, "bert": bert, "convnext": convnext, "mobilenet": mobilenet, "hf_trainer": hf_trainer}
