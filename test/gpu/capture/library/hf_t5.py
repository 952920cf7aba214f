"""HF Trainer on T5 from a config (an encoder-decoder, bf16), then greedy generation under
no_grad: training and inference memory in one run. Usage: python hf_t5.py [--plain OUT.pickle]"""
import torch
from transformers import T5Config, T5ForConditionalGeneration, Trainer, TrainingArguments

from common import parse, run

VOCAB = 8192


class Pairs(torch.utils.data.Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        # Ids from 2: 0 is pad (and the decoder's start), 1 is eos.
        src = torch.randint(2, VOCAB, (128,), generator=g)
        return {"input_ids": src, "attention_mask": torch.ones_like(src), "labels": torch.randint(2, VOCAB, (32,), generator=g)}


def train(args):
    torch.manual_seed(0)
    cfg = T5Config(vocab_size=VOCAB, d_model=256, d_kv=32, d_ff=1024, num_layers=4, num_decoder_layers=4, num_heads=8,
                   pad_token_id=0, eos_token_id=1, decoder_start_token_id=0)
    model = T5ForConditionalGeneration(cfg)
    targs = TrainingArguments(output_dir="/tmp/lib_hf_t5", per_device_train_batch_size=16, max_steps=5, bf16=True,
                              report_to=[], save_strategy="no", logging_steps=100, disable_tqdm=True, dataloader_num_workers=0)
    trainer = Trainer(model=model, args=targs, train_dataset=Pairs())
    trainer.train()
    model.eval()
    src = torch.randint(2, VOCAB, (16, 128), device=model.device)
    with torch.no_grad():
        out = model.generate(input_ids=src, attention_mask=torch.ones_like(src), max_new_tokens=24, do_sample=False)
    print("generated", tuple(out.shape))
    return trainer, out


if __name__ == "__main__":
    run(train, parse())
