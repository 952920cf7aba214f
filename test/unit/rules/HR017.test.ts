import assert from 'node:assert/strict';
import { it } from 'node:test';
import { code, describeRule, fixed } from '../lintHelpers';

// HR017's tests: its page (docs/rules/HR017.md) says what it finds and when it stays silent.

describeRule('HR017 nonexistent-torch-api', (lint) => {
  it('HR017: the invented efficient_coalesce is an error that names the real memory APIs', () => {
    const src =
      'import torch\ntorch.cuda.memory.efficient_coalesce()\ntorch.cuda.memory.empty_cache()\ntorch.cuda.emtpy_cache()\nfrom torch.cuda.memory import memory_sumary\nif hasattr(torch.cuda, "new_api"):\n    torch.cuda.new_api()\ntorch.cuda._private()\n';
    const fs = lint(src, 'HR017');
    assert.deepEqual(
      fs.map((f) => [f.start.line, f.severity]),
      [
        [1, 'error'],
        [3, 'error'],
        [4, 'error'],
      ],
    );
    assert.match(fs[0]!.message, /torch\.cuda\.memory has no `efficient_coalesce`.*torch\.cuda\.empty_cache\(\)/);
    assert.equal(fixed(src, fs[1]!), src.replace('torch.cuda.emtpy_cache()', 'torch.cuda.empty_cache()'));
    assert.equal(fixed(src, fs[2]!), src.replace('import memory_sumary', 'import memory_summary'));
  });

  it("HR017: names behind a version or backend check are deliberate, attributes and imports alike (mmengine's parrots branches)", () => {
    const src = code(`
import torch
from torch import nn
GUARD
    from torch.utils.data import DataLoader, PoolDataLoader
    norm = torch.nn.SyncBatchNorm2d
    bn = nn.SyncBatchNorm2d
`);
    for (const guard of [
      "if TORCH_VERSION == 'parrots':",
      'if torch.__version__ < "1.0":',
      'if IS_PARROTS_Version:',
      'if hasattr(torch.nn, "SyncBatchNorm2d"):',
    ])
      assert.deepEqual(lint(src.replace('GUARD', guard), 'HR017'), [], guard);
    // Any other condition is no guard, a word that only contains "version" neither (torchrl's PONG_VERSIONED()):
    // the import's name and both attributes are reported.
    for (const other of ['if use_parrots:', 'if env_name == PONG_VERSIONED():'])
      assert.deepEqual(
        lint(src.replace('GUARD', other), 'HR017').map((f) => f.start.line),
        [3, 4, 5],
        other,
      );
  });

  it("HR017: a function that binds the import's name itself uses a local there, not the module (torchrl's `dist = policy.get_dist(…)`)", () => {
    const src = code(`
import torch
from torch import distributions as dist
def assigned(policy, obs):
    dist = policy.get_dist(obs)
    return dist.base_dist.logits
def parameter(dist):
    return dist.base_dist
def looped(policies):
    for dist in policies:
        print(dist.base_dist)
def module_name():
    return dist.base_dist
def nested():
    def inner():
        dist = make()
    return dist.base_dist
`);
    assert.deepEqual(
      lint(src, 'HR017').map((f) => f.start.line),
      [11, 15],
    );
  });
});
