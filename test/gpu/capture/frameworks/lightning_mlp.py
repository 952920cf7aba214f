"""Lightning: four MLP blocks; training_step calls the blocks directly (the LightningModule's own
forward never runs), as many LightningModules do."""
import torch
import torch.nn as nn
import pytorch_lightning as pl


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


class Lit(pl.LightningModule):
    def __init__(self, d=1024):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(d) for _ in range(4)])
        self.head = nn.Linear(d, 10)

    def training_step(self, batch, _):
        x, y = batch
        return nn.functional.cross_entropy(self.head(self.blocks(x)), y)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


def main():
    torch.manual_seed(0)
    data = torch.utils.data.TensorDataset(torch.randn(4096, 1024), torch.randint(0, 10, (4096,)))
    trainer = pl.Trainer(max_steps=6, accelerator="gpu", devices=1, logger=False, enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(Lit(), torch.utils.data.DataLoader(data, batch_size=512))


if __name__ == "__main__":
    main()
