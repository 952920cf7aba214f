"""The held-out library models: recorded plain only and never looked at while tuning the analyzer.
Usage: python heldout.py --model {bert,convnext,maskrcnn,llama} [--plain OUT.pickle]"""
import torch
import torch.nn.functional as F

from common import parse, run


def steps(model, batch, loss_of, n=4, lr=1e-4, amp=True):
    """A plain AdamW loop, under bf16 autocast unless amp=False."""
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    for _ in range(n):
        b = batch()
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
            loss = loss_of(model, b)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return model, opt


def bert():
    from transformers import BertConfig, BertForMaskedLM

    model = BertForMaskedLM(BertConfig(vocab_size=8192, hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
                                       intermediate_size=1024, max_position_embeddings=256)).cuda().train()

    def batch():
        ids = torch.randint(5, 8192, (32, 128), device="cuda")
        return ids, torch.where(torch.rand(ids.shape, device="cuda") < 0.15, ids, torch.full_like(ids, -100))

    return steps(model, batch, lambda m, b: m(input_ids=b[0], attention_mask=torch.ones_like(b[0]), labels=b[1]).loss)


def convnext():
    import timm

    model = timm.create_model("convnext_tiny", pretrained=False, num_classes=100).cuda()
    batch = lambda: (torch.randn(32, 3, 160, 160, device="cuda"), torch.randint(0, 100, (32,), device="cuda"))  # noqa: E731
    return steps(model, batch, lambda m, b: F.cross_entropy(m(b[0]), b[1]), lr=1e-3)


def maskrcnn():
    from torchvision.models.detection import maskrcnn_resnet50_fpn

    model = maskrcnn_resnet50_fpn(weights=None, weights_backbone=None, num_classes=5, min_size=320, max_size=512).cuda().train()
    g = torch.Generator().manual_seed(0)

    def target(h, w):
        k = int(torch.randint(1, 5, (1,), generator=g))
        # Boxes up to 92 x 70 px from a corner at least 100 px from the right and bottom edges.
        x1, y1 = int(torch.randint(0, w - 100, (1,), generator=g)), int(torch.randint(0, h - 100, (1,), generator=g))
        boxes = torch.tensor([[x1, y1, x1 + 32 + 20 * j, y1 + 40 + 10 * j] for j in range(k)], dtype=torch.float32)
        masks = torch.zeros(k, h, w, dtype=torch.uint8)
        for j, (a, b, c, d) in enumerate(boxes.long().tolist()):
            masks[j, b:d, a:c] = 1
        return {"boxes": boxes.cuda(), "labels": torch.randint(1, 5, (k,), generator=g).cuda(), "masks": masks.cuda()}

    def batch():
        sizes = [(int(torch.randint(256, 400, (1,), generator=g)), int(torch.randint(256, 400, (1,), generator=g))) for _ in range(4)]
        return [torch.rand(3, h, w, generator=g).cuda() for h, w in sizes], [target(h, w) for h, w in sizes]

    # fp32, as torchvision's reference scripts train detection without --amp.
    return steps(model, batch, lambda m, b: sum(m(*b).values()), amp=False)


def llama():
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = LlamaConfig(vocab_size=8192, hidden_size=384, intermediate_size=1024, num_hidden_layers=4, num_attention_heads=6,
                      num_key_value_heads=2, max_position_embeddings=512)
    model = LlamaForCausalLM(cfg).cuda().train()
    model.gradient_checkpointing_enable()
    batch = lambda: torch.randint(0, 8192, (8, 256), device="cuda")  # noqa: E731
    return steps(model, batch, lambda m, x: m(input_ids=x, labels=x, use_cache=False).loss)


MODELS = {"bert": bert, "convnext": convnext, "maskrcnn": maskrcnn, "llama": llama}


def train(args):
    torch.manual_seed(0)
    return MODELS[args.model]()


if __name__ == "__main__":
    run(train, parse(lambda ap: ap.add_argument("--model", required=True, choices=sorted(MODELS))))
