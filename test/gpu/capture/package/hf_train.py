"""Hugging Face Trainer on a GPT-2 config (bf16, gradient checkpointing) with HeadroomCallback.
argv: on|off OUT."""
import sys

import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainerCallback, TrainingArguments

from common import deterministic, report


class Tokens(torch.utils.data.Dataset):
    def __len__(self):
        return 128

    def __getitem__(self, i):
        x = torch.randint(0, 8192, (256,), generator=torch.Generator().manual_seed(i))
        return {"input_ids": x, "labels": x}


class LastLoss(TrainerCallback):
    loss = None

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs and "loss" in logs:
            LastLoss.loss = logs["loss"]


def main(mode, out):
    deterministic()
    callbacks = [LastLoss()]
    if mode == "on":
        from torch_headroom.transformers import HeadroomCallback

        callbacks.append(HeadroomCallback(out=out))
    model = GPT2LMHeadModel(GPT2Config(vocab_size=8192, n_positions=256, n_embd=512, n_layer=6, n_head=8))
    args = TrainingArguments(output_dir=out + "/hf", per_device_train_batch_size=16, max_steps=8, bf16=True, gradient_checkpointing=True,
                             report_to=[], save_strategy="no", logging_steps=1, disable_tqdm=True, full_determinism=True, seed=0)
    Trainer(model=model, args=args, train_dataset=Tokens(), callbacks=callbacks).train()
    report(LastLoss.loss, model, callbacks[1].path if len(callbacks) > 1 else None)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
