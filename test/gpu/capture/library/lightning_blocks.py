"""Lightning trains a LightningModule built from torch's own transformer blocks
(nn.TransformerEncoderLayer) under bf16-mixed: Lightning runs the loop, the module's forward runs
the blocks. Usage: python lightning_blocks.py [--plain OUT.pickle]"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

try:
    import lightning.pytorch as pl
except ImportError:  # the standalone package
    import pytorch_lightning as pl

from common import parse, run

VOCAB = 8192


class Encoder(pl.LightningModule):
    def __init__(self, d=384, heads=6, layers=4):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, batch_first=True, norm_first=True)
        self.body = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d, VOCAB)

    def forward(self, x):
        return self.head(self.body(self.emb(x)))

    def training_step(self, batch, _):
        x, y = batch
        return F.cross_entropy(self(x).flatten(0, 1), y.flatten())

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=3e-4)


def train(args):
    torch.manual_seed(0)
    data = TensorDataset(torch.randint(0, VOCAB, (256, 128)), torch.randint(0, VOCAB, (256, 128)))
    model = Encoder()
    trainer = pl.Trainer(accelerator="gpu", devices=1, max_steps=5, precision="bf16-mixed", logger=False,
                         enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(model, DataLoader(data, batch_size=32))
    return trainer, model


if __name__ == "__main__":
    run(train, parse())
