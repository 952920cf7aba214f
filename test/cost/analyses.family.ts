import { execFileSync } from 'node:child_process';
import { cpSync, linkSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CostCase, CostFamily } from './family';

// Issue 39's analyses: the check, the OOM doctor, the leak check and `ranks`, each given an input
// whose size an attacker chooses. The snapshots are written by python3's own pickle module (the
// standard library only), from the shape of the attack; run folders are written here.

const ROOT = resolve(__dirname, '..', '..');
const RUN = join(ROOT, 'test', 'fixtures', 'runs', 'lm_train');

// One script, one shape per first argument: python3 -c GEN SHAPE N OUT.
const GEN = `
import pickle, sys
shape, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
MiB = 1 << 20
BASE = 0x7F0000000000

def fr(line):
    return [{"filename": "/w/train.py", "line": line, "name": "step"}]

def e(action, addr, size, t, frames=None, **kw):
    d = {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": t, "frames": frames or []}
    d.update(kw)
    return d

def oom(size, free, t):
    return {"action": "oom", "device_free": free, "size": size, "stream": 0, "time_us": t, "frames": fr(90)}

def seg(addr, size, blocks, device=0, expandable=False):
    return {"device": device, "address": addr, "total_size": size, "allocated_size": 0, "active_size": 0,
            "requested_size": 0, "stream": 0, "segment_type": "large", "segment_pool_id": (0, 0),
            "is_expandable": expandable, "frames": [], "blocks": blocks}

segments, traces = [], [[]]
if shape == "devices":
    # One small allocation on each of n devices: every device has a trace of one entry.
    traces = [[e("alloc", BASE, 512, 1 + d, fr(3))] for d in range(n)]
elif shape == "ooms":
    # n failed requests, each after one allocation that stays live.
    size = 2 * MiB
    segments = [seg(BASE, n * size, [{"address": BASE + i * size, "size": size, "requested_size": size,
                "state": "active_allocated", "frames": fr(10 + i % 7)} for i in range(n)])]
    t = []
    t.append(e("segment_alloc", BASE, n * size, 0))
    for i in range(n):
        t.append(e("alloc", BASE + i * size, size, 2 * i + 1, fr(10 + i % 7)))
        t.append(oom(64 * MiB, 0, 2 * i + 2))
    traces = [t]
elif shape == "unmaps":
    # One expandable range mapped, then every other page of it unmapped (n unmaps), then one OOM.
    t = [e("segment_map", BASE, 4 * n * MiB, 0)]
    for i in range(n):
        t.append(e("segment_unmap", BASE + 4 * i * MiB, 2 * MiB, 1 + i))
    t.append(oom(64 * MiB, 0, 2 + n))
    segments = [seg(BASE + (4 * i + 2) * MiB, 2 * MiB, [{"address": BASE + (4 * i + 2) * MiB, "size": 2 * MiB,
                "requested_size": 0, "state": "inactive", "frames": []}], expandable=True) for i in range(n)]
    traces = [t]
elif shape == "leak":
    # n allocations alternating between two lines, half of them freed: one line's tensors pile up.
    t = []
    for i in range(n):
        a = BASE + i * 512
        t.append(e("alloc", a, 512, 3 * i, fr(20 if i % 2 else 30)))
        if i % 2 == 0:
            t.append(e("free_requested", a, 512, 3 * i + 1, fr(30)))
            t.append(e("free_completed", a, 512, 3 * i + 2, fr(30)))
    traces = [t]
elif shape == "blocks":
    # 2n blocks of 2 MiB in one segment, every other one freed, then a 4 MiB request: the free
    # memory is in pieces, and n blocks sit between the holes.
    size, m = 2 * MiB, 2 * n
    t = [e("segment_alloc", BASE, m * size, 0)]
    blocks = []
    for i in range(m):
        t.append(e("alloc", BASE + i * size, size, 1 + i, fr(40)))
    for i in range(0, m, 2):
        t.append(e("free_requested", BASE + i * size, size, m + i, fr(40)))
        t.append(e("free_completed", BASE + i * size, size, m + i + 1, fr(40)))
    for i in range(m):
        live = i % 2 == 1
        blocks.append({"address": BASE + i * size, "size": size, "requested_size": size,
                       "state": "active_allocated" if live else "inactive", "frames": fr(40) if live else []})
    t.append(oom(4 * MiB, 0, 3 * m))
    segments = [seg(BASE, m * size, blocks)]
    traces = [t]
else:
    raise SystemExit("no shape " + shape)

with open(out, "wb") as f:
    pickle.dump({"segments": segments, "device_traces": traces, "allocator_settings": {}, "external_annotations": []}, f, protocol=4)
`;

function snapshot(dir: string, shape: string, n: number): string {
  const out = join(dir, 'snapshot-oom.pickle');
  execFileSync('python3', ['-c', GEN, shape, String(n), out]);
  return out;
}

/** A copy of a real run folder whose snapshot is the `ooms` shape at n and whose gpu-at-oom.jsonl is `mib` MiB of readings. */
function oomRun(dir: string, n: number, mib: number): string {
  const run = join(dir, 'run');
  cpSync(RUN, run, { recursive: true });
  for (const f of readdirSync(run)) if (f.startsWith('snapshot-')) rmSync(join(run, f));
  execFileSync('python3', ['-c', GEN, 'ooms', String(n), join(run, 'snapshot-oom.pickle')]);
  // One reading a line, at times around the OOMs', for device 0 and another device.
  const line = (t: number, d: number) =>
    `${JSON.stringify({
      t,
      device: d,
      run: [100],
      reading: {
        devices: [
          {
            index: d,
            processes: [
              { pid: 100, used: 1 << 30 },
              { pid: 7000 + (t % 50), used: 1 << 28 },
            ],
          },
        ],
      },
    })}\n`;
  const lines: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < mib * 2 ** 20; i++) {
    const l = line(i, i % 2);
    lines.push(l);
    bytes += l.length;
  }
  writeFileSync(join(run, 'gpu-at-oom.jsonl'), lines.join(''));
  return join(run, 'snapshot-oom.pickle');
}

/** `ranks` over `count` rank folders whose samples.jsonl are hard links to one file of `mib` MiB. */
function ranksRun(dir: string, count: number, mib: number): string {
  const run = join(dir, 'run');
  mkdirSync(run);
  writeFileSync(join(run, 'meta.json'), JSON.stringify({ schema: 1 }));
  const shared = join(dir, 'samples.jsonl');
  const lines: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < mib * 2 ** 20; i++) {
    const l = `${JSON.stringify({ t: i, device: 0, allocated: 1000 + (i % 977), reserved: 4096, active: 0, inactive_split: 0, requested: 1000, max_allocated: 2000, max_reserved: 4096, max_requested: 2000 + (i % 101), retries: 0, ooms: 0, device_total: 2 ** 34 })}\n`;
    lines.push(l);
    bytes += l.length;
  }
  writeFileSync(shared, lines.join(''));
  for (let r = 0; r < count; r++) {
    const rank = join(dir, `run-rank${r}`);
    mkdirSync(rank);
    writeFileSync(join(rank, 'meta.json'), JSON.stringify({ schema: 1, rank: r }));
    linkSync(shared, join(rank, 'samples.jsonl'));
  }
  return run;
}

export const families: CostFamily[] = [
  {
    name: 'check-many-devices',
    unit: 'devices with one allocation each',
    make: (dir, n) => ({ argv: ['check', snapshot(dir, 'devices', n), '--max-peak', '1GiB'] }),
    small: 4000,
    full: 65_535,
  },
  {
    name: 'doctor-many-ooms',
    unit: 'OOM events, each after a live allocation',
    make: (dir, n) => ({ argv: ['check', snapshot(dir, 'ooms', n), '--explain-oom', '--json'] }),
    small: 2000,
    full: 20_000,
  },
  {
    name: 'doctor-unmaps',
    unit: 'segment_unmap events before one OOM',
    make: (dir, n) => ({ argv: ['check', snapshot(dir, 'unmaps', n), '--explain-oom'] }),
    small: 3000,
    full: 200_000,
  },
  {
    name: 'doctor-gpu-at-oom',
    unit: 'OOMs, with 64 MB of gpu-at-oom.jsonl per 300 OOMs',
    make: (dir, n) => ({ argv: ['check', oomRun(dir, n, Math.ceil((n * 64) / 300)), '--explain-oom'] }),
    small: 20,
    full: 300,
  },
  {
    name: 'leak-alternating-lines',
    unit: 'allocations alternating between two lines',
    make: (dir, n) => ({ argv: ['check', snapshot(dir, 'leak', n), '--no-leak'] }),
    small: 10_000,
    full: 300_000,
  },
  {
    name: 'doctor-blocks-between-holes',
    unit: 'blocks between free holes in one segment',
    make: (dir, n) => ({ argv: ['check', snapshot(dir, 'blocks', n), '--explain-oom'] }),
    small: 4000,
    full: 200_000,
  },
  {
    name: 'ranks-linked-samples',
    unit: 'MiB of samples.jsonl, hard-linked into six ranks',
    make: (dir, n): CostCase => ({ argv: ['ranks', ranksRun(dir, 6, n)] }),
    small: 4,
    full: 256,
  },
  {
    name: 'ranks-many-folders',
    unit: 'rank folders beside the run',
    make: (dir, n): CostCase => {
      const run = join(dir, 'run');
      mkdirSync(run);
      writeFileSync(join(run, 'meta.json'), '{}');
      for (let r = 0; r < n; r++) {
        mkdirSync(join(dir, `run-rank${r}`));
        writeFileSync(join(dir, `run-rank${r}`, 'meta.json'), '{}');
      }
      return { argv: ['ranks', run] };
    },
    small: 2000,
    full: 130_000,
  },
];
