import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { importBindings } from '../../extension/src/core/lint/analysis/imports';
import { moduleFacts } from '../../extension/src/core/lint/analysis/modules';
import { callsModule } from '../../extension/src/core/lint/analysis/moduleNames';
import type { PythonParser } from '../../extension/src/core/lint/syntax/parser';
import { rootOf } from '../../extension/src/core/lint/syntax/syntaxTree';
import { code, loadParser } from './lintHelpers';

// Which names hold a module, from what the file shows: what built it, what wraps or moves it, what is done with it.
describe('lint: module facts', () => {
  let parser: PythonParser;
  before(async () => {
    parser = await loadParser();
  });
  const facts = (src: string) => {
    const tree = parser.parse(src);
    try {
      const root = rootOf(tree, src);
      return moduleFacts(root, importBindings(root));
    } finally {
      tree.delete();
    }
  };

  it('finds modules by construction, wrapping, moving, annotation and use, whatever they are called', () => {
    const f = facts(
      code(`
import copy
import timm
import torch
import torch.nn as nn
import torchvision
from transformers import AutoModelForCausalLM
from torch.nn.parallel import DistributedDataParallel as DDP
class Block(nn.Module):
    pass
class Tower(Block):
    pass
class Head:
    def forward(self, x):
        return x
a = Tower()
b = Head()
c = nn.Linear(4, 4)
d = torchvision.models.resnet18()
e = timm.create_model("vit_tiny_patch16_224")
g = AutoModelForCausalLM.from_pretrained("gpt2")
h = DDP(a)
k = copy.deepcopy(c)
m = k.to("cuda")
crit = nn.CrossEntropyLoss()
def run(enc: nn.Module, p):
    p.eval()
    self.backbone = Tower()
`),
    );
    assert.deepEqual([...f.names].sort(), [':self.backbone', 'a', 'b', 'c', 'd', 'e', 'enc', 'g', 'h', 'k', 'm', 'p']);
    // A loss, like dropout or an activation, has no parameters: a function of its inputs, not a model.
    assert.deepEqual([...f.functions], ['crit']);
    assert.deepEqual([...f.classes].sort(), ['Block', 'Head', 'Tower']);
    assert.ok(callsModule('self.backbone', f, '') && callsModule('a[0]', f) && callsModule('g.forward', f));
    // generate() runs under no_grad in Hugging Face's own code; parameters() runs nothing.
    assert.ok(!callsModule('g.generate', f) && !callsModule('a.parameters', f) && !callsModule('x', f));
  });

  it('is not fooled by look-alikes: an optimizer’s state_dict, a Trainer’s train(), a pydantic model, a plain call', () => {
    const f = facts(
      code(`
import torch
from pydantic import BaseModel
class Config(BaseModel):
    lr: float = 0.1
opt = torch.optim.SGD(params, lr=0.1)
opt.load_state_dict(state)
sd = opt.state_dict()
trainer.train()
cfg = Config()
out = build(cfg)
t = torch.zeros(3)
`),
    );
    assert.deepEqual([...f.names], []);
  });
});
