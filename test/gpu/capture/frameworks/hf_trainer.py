"""HF Trainer on a GPT-2 config (6 layers, bf16, gradient checkpointing, 2 DataLoader workers),
random tokens: the framework runs the loop, the user's file has one line that trains."""
import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments


class Tokens(torch.utils.data.Dataset):
    def __len__(self):
        return 256

    def __getitem__(self, i):
        x = torch.randint(0, 8192, (256,), generator=torch.Generator().manual_seed(i))
        return {"input_ids": x, "labels": x}


def main(out):
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=8192, n_positions=256, n_embd=512, n_layer=6, n_head=8))
    args = TrainingArguments(output_dir=out, per_device_train_batch_size=16, max_steps=6, bf16=True, gradient_checkpointing=True,
                             dataloader_num_workers=2, report_to=[], save_strategy="no", logging_steps=100, disable_tqdm=True)
    Trainer(model=model, args=args, train_dataset=Tokens()).train()


if __name__ == "__main__":
    import sys
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/hf_out")
