"""Which named parameter each gradient and optimizer-state tensor belongs to: autograd's engine and
the optimizer allocate them with no Python stack, so the snapshot alone cannot say.

After each optimizer step (torch's global step post hook, torch >= 2.0) the agent reads, for every
parameter of the optimizer, the storage of the parameter, of its .grad and of each tensor of its
state, and appends to params.jsonl what changed since its last line (i: the index in `names`):

  {"type":"names","t":T,"opt":0,"optimizer":"AdamW","names":[...],"unnamed":[i,...]}
  {"type":"map","t":T,"opt":0,"full":true,"set":[[i,"p"|"g"|"s:<key>",device,address,bytes],...],"gone":[[i,kind],...]}
  {"type":"seen","t":T,"opt":0}    the same addresses, seen again (gradients reallocated in place)
  {"type":"capped","t":T,"bytes":N,"message":"..."}

T: time.time() in µs, the snapshot trace's clock; the engine credits a live block to the tensor
seen at its address, with its size, while it was alive (analysis/paramsMatch.ts). Lines are written
only while PyTorch's recorder is on (only then does a trace hold the allocations) and at the first
step after each snapshot (a peak snapshot is taken after backward(), before the step that sees its
gradients); between windows a step costs one check. A recorded step costs, on an H100 host with
torch 2.11 and AdamW (test/agent/workloads/params_cost.py), ~0.74 ms for 300 parameters when no
address moved and ~2.6 ms when every gradient did; past BUDGET of the process's time it stops.
"""
import json
import os
import sys
import time

from . import paramread
from .paramnames import Names, _Refs
from .runfolder import now_us

FILE = "params.jsonl"
CAP_BYTES = 4 << 20
# Off for the rest of the process once the hook took more than BUDGET of its time.
BUDGET = 0.01
MIN_CALLS = 50


class _Opt(object):
    __slots__ = ("index", "ids", "sig", "keys", "entries")


class Params(object):
    def __init__(self, torch, agent):
        self.torch = torch
        self.agent = agent
        self.cpu = agent.config.params_cpu
        self.names = Names()
        self.opts = _Refs()
        self.count = 0
        self.written = 0
        self.off = False
        self.seq = 0
        self.calls = 0
        self.spent = 0.0
        self.since = time.perf_counter()
        self.compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None) or (lambda: False)

    def install(self):
        # torch.optim deletes its submodules' names (`del optimizer`): sys.modules has them.
        reg = getattr(sys.modules.get("torch.optim.optimizer"), "register_optimizer_step_post_hook", None)
        if reg is None or not self.names.install(self.torch):
            return False
        reg(self._after_step)
        return True

    def _due(self):
        r = self.agent.recorder
        if r is None or not r.enabled or r.pid != os.getpid():
            return False
        seq, self.seq = self.seq, getattr(r, "seq", 0)
        return r.history or seq != self.seq

    def _after_step(self, opt, args, kwargs):
        """torch calls it inside optimizer.step(): nothing may escape, whatever happens. A step
        compiled by torch.compile traces it away (nothing recorded, no graph break)."""
        try:
            if self.compiling() or self.off or not self._due():
                return None
            t0 = time.perf_counter()
            try:
                self._observe(opt)
            except Exception as e:
                self._stop("warning", "parameter names are off: %s: %s" % (type(e).__name__, e))
            self.calls += 1
            now = time.perf_counter()
            self.spent += now - t0
            if self.calls >= MIN_CALLS and self.spent > BUDGET * (now - self.since):
                self._stop("info", "parameter names are off: the optimizer-step hook took %.1f s, over %d%% of the run" % (self.spent, BUDGET * 100))
        except Exception:
            pass
        return None

    def _stop(self, level, message):
        self.off = True
        self.agent.log(level, message)

    def _observe(self, opt):
        st = self.opts.get(opt)
        params = [p for g in opt.param_groups for p in g["params"]]
        ids = [id(p) for p in params]
        if st is None or st.ids != ids:
            if st is None:
                st = _Opt()
                st.index = self.count
                self.count += 1
                self.opts.put(opt, st)
            st.ids, st.sig, st.keys, st.entries = ids, None, None, {}
            names, unnamed = self.names.name(params)
            if not self._write({"type": "names", "t": now_us(), "opt": st.index, "optimizer": type(opt).__name__, "names": names, "unnamed": unnamed}):
                return
        Tensor = self.torch.Tensor
        t = now_us()  # the workload's thread is here: what is read next was alive at t
        states = paramread.states_by_id(opt)
        sig = paramread.signature(Tensor, states, params)
        if sig is not None and sig == st.sig:
            self._write({"type": "seen", "t": t, "opt": st.index})
            return
        old = st.entries
        moved = paramread.read_moved(states, params, self.cpu, sig, st.sig, st.keys, old) if sig is not None else None
        if moved is not None:
            entries, touched = moved
        else:
            entries, keys = paramread.read_all(Tensor, states, params, self.cpu)
            touched = sorted(set(old) | set(entries))
        if entries == old and sig is None:
            self._write({"type": "seen", "t": t, "opt": st.index})
            return
        changed = [[i, k] + list(entries[(i, k)]) for (i, k) in touched if (i, k) in entries and entries[(i, k)] != old.get((i, k))]
        gone = [[i, k] for (i, k) in touched if (i, k) in old and (i, k) not in entries]
        if self._write({"type": "map", "t": t, "opt": st.index, "full": st.sig is None and not old, "set": changed, "gone": gone}):
            st.sig, st.entries = sig, entries
            if moved is None:
                st.keys = keys if sig is not None else None

    def _write(self, obj):
        line = json.dumps(obj, separators=(",", ":")) + "\n"
        if self.written + len(line) > CAP_BYTES:
            msg = "params.jsonl reached its %d MiB cap: later optimizer steps are not recorded" % (CAP_BYTES >> 20)
            self.agent.folder.append(FILE, {"type": "capped", "t": now_us(), "bytes": self.written, "message": msg})
            self._stop("info", msg)
            return False
        self.written += len(line)
        self.agent.folder.append_line(FILE, line)
        return True


def install(torch, agent):
    """The hooks, where this torch has them (>= 2.0); None where it has not."""
    p = Params(torch, agent)
    return p if p.install() else None
