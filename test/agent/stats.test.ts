// The agent reads the allocator's figures from the nested dict torch builds in C (stats.py), not
// through torch.cuda.memory_stats()'s flattening (7x slower on an H100): both paths must give the
// figures memory_stats() gives, on fakecuda's device under Debian's torch.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { DEBIAN_PY, ensureDebianTorch, runAsync } from './pythons';

const AGENT = join(__dirname, '..', '..', 'extension', 'agent');
const WORKLOADS = join(__dirname, 'workloads');

const SCRIPT = `
import json, fakecuda, torch
fakecuda.install()
fakecuda.use(5 << 20)
fakecuda.use(-(3 << 20))
from headroom_agent.stats import read
keys = ("allocated_bytes.all.current", "allocated_bytes.all.peak", "reserved_bytes.all.current", "num_ooms", "no_such.figure")
flat = torch.cuda.memory_stats(0)
out = {"memory_stats": {k: flat.get(k, 0) for k in keys}, "nested": read(torch, 0, keys)}
def broken(device):
    raise RuntimeError("no CUDA")
torch._C._cuda_memoryStats = broken
out["after_error"] = read(torch, 0, keys)
del torch._C._cuda_memoryStats
out["without"] = read(torch, 0, keys)
print(json.dumps(out))
`;

describe('allocator figures (stats.py)', () => {
  before(() => ensureDebianTorch());

  it('the nested read, its fallbacks and memory_stats() agree', async () => {
    const r = await runAsync(
      DEBIAN_PY,
      ['-c', SCRIPT],
      { ...process.env, PYTHONPATH: [AGENT, WORKLOADS].join(':') },
      { hangGuardMs: 120_000 },
    );
    assert.equal(r.code, 0, r.err);
    const out = JSON.parse(r.out) as Record<string, Record<string, number>>;
    const expected = {
      'allocated_bytes.all.current': 2 << 20,
      'allocated_bytes.all.peak': 5 << 20,
      'reserved_bytes.all.current': 6 << 20,
      num_ooms: 0,
      'no_such.figure': 0,
    };
    assert.deepEqual(out.memory_stats, expected);
    assert.deepEqual(out.nested, expected);
    assert.deepEqual(out.after_error, expected);
    assert.deepEqual(out.without, expected);
  });
});
