"""HF Trainer training a GPT-2 decoder from a config (bf16, gradient checkpointing): the library
runs the loop and the model, the user's file only builds them. GPT-2, not Llama: Llama is held out
(heldout.py). Usage: python hf_decoder.py [--plain OUT.pickle]"""
import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

from common import parse, run


class Tokens(torch.utils.data.Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        x = torch.randint(0, 8192, (256,), generator=torch.Generator().manual_seed(i))
        return {"input_ids": x, "labels": x}


def train(args):
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=8192, n_positions=256, n_embd=512, n_layer=4, n_head=8))
    targs = TrainingArguments(output_dir="/tmp/lib_hf_decoder", per_device_train_batch_size=8, max_steps=5, bf16=True,
                              gradient_checkpointing=True, report_to=[], save_strategy="no", logging_steps=100,
                              disable_tqdm=True, dataloader_num_workers=0)
    trainer = Trainer(model=model, args=targs, train_dataset=Tokens())
    trainer.train()
    return trainer


if __name__ == "__main__":
    run(train, parse())
