"""Accelerate driving an HF GPT-2 (config only) with its own backward and bf16 mixed precision."""
import torch
from accelerate import Accelerator
from transformers import GPT2Config, GPT2LMHeadModel


def main():
    torch.manual_seed(0)
    acc = Accelerator(mixed_precision="bf16")
    model = GPT2LMHeadModel(GPT2Config(vocab_size=8192, n_positions=256, n_embd=512, n_layer=4, n_head=8))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    model, opt = acc.prepare(model, opt)
    for _ in range(4):
        x = torch.randint(0, 8192, (16, 256), device=acc.device)
        loss = model(input_ids=x, labels=x).loss
        acc.backward(loss)
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
