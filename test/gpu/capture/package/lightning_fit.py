"""Lightning (pytorch_lightning, as many projects import it) with HeadroomCallback. argv: on|off OUT."""
import sys

import pytorch_lightning as pl
import torch
import torch.nn as nn

from common import deterministic, report


class Lit(pl.LightningModule):
    def __init__(self, d=1024):
        super().__init__()
        self.net = nn.Sequential(*[nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d)) for _ in range(4)], nn.Linear(d, 10))
        self.last = None

    def training_step(self, batch, _):
        x, y = batch
        loss = nn.functional.cross_entropy(self.net(x), y)
        self.last = loss.detach()
        return loss

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


def main(mode, out):
    deterministic()
    callbacks = []
    if mode == "on":
        from torch_headroom.lightning import HeadroomCallback

        callbacks.append(HeadroomCallback(out=out))
    data = torch.utils.data.TensorDataset(torch.randn(4096, 1024), torch.randint(0, 10, (4096,)))
    model = Lit()
    trainer = pl.Trainer(max_steps=8, accelerator="gpu", devices=1, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False, deterministic=True, precision="bf16-mixed", callbacks=callbacks)
    trainer.fit(model, torch.utils.data.DataLoader(data, batch_size=512))
    report(model.last, model, callbacks[0].path if callbacks else None)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
