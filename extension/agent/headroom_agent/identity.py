"""Which process of a run this is, and so which folder it writes.

The launched process writes <run>; a torchrun worker <run>-rank<r> (as before); any other process
that uses CUDA (torch.multiprocessing.spawn and multiprocessing workers, forked children, compile
workers) <run>-rank<r> when torch.distributed knows its rank, else <run>-pid<pid>. A process learns
that an agent of the run is above it from HEADROOM_PROC ("pid rank"), which each agent sets for its
descendants. The folder is chosen only when the process first holds CUDA memory (folder.claim), so
that a process that never does leaves nothing, and a spawned rank is named after init_process_group.
"""
import os
import sys

ENV = "HEADROOM_PROC"


def _optint(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


class Identity(object):
    def __init__(self, config, env=None):
        env = os.environ if env is None else env
        self.config = config
        self.pid = os.getpid()
        parent = (env.get(ENV) or "").split()
        if parent and _optint(parent[0]) == self.pid:
            parent = []  # set by this process itself (torch_headroom's record() names a run before arming)
        parent_rank = _optint(parent[1]) if len(parent) > 1 else None
        own_rank = config.rank
        if not parent:
            self.role = "rank" if own_rank is not None else "root"
        elif own_rank is not None and own_rank != parent_rank:
            self.role = "rank"  # torchrun's worker: RANK is new below its launcher
        else:
            self.role = "child"
        self.rank = own_rank if self.role == "rank" else None
        self.seen_rank = None
        self._mark(env, self.rank if self.rank is not None else parent_rank)

    def _mark(self, env, rank):
        env[ENV] = "%d %s" % (self.pid, "-" if rank is None else rank)

    def forked(self):
        """In a forked child: a child of the process that forked, whatever that one was."""
        inherited = self.rank
        self.pid = os.getpid()
        self.role = "child"
        self.rank = None
        self.seen_rank = None
        self._mark(os.environ, inherited)

    def note_rank(self):
        """Remembers torch.distributed's rank while its process group is up (a spawned rank may
        claim its folder only at exit, after destroy_process_group)."""
        if self.role == "child":
            r = dist_rank()
            if r is not None:
                self.seen_rank = r

    def candidates(self):
        """Folder names to claim, best first; the pid one always works."""
        c = self.config
        base = os.path.join(c.runs_dir, c.run_id or "run-%d" % self.pid)
        if self.role == "rank":
            if (c.world_size or 0) > 1:
                yield base + "-rank%d" % self.rank + ("-restart%d" % c.restart if c.restart else "")
            else:
                yield base
        elif self.role == "root":
            yield base
        else:
            r = dist_rank()
            r = self.seen_rank if r is None else r
            if r is not None:
                yield base + "-rank%d" % r
        yield base + "-pid%d" % self.pid


def dist_rank():
    """torch.distributed's rank when a process group of several is up; never imports anything."""
    d = sys.modules.get("torch.distributed")
    try:
        if d is not None and d.is_available() and d.is_initialized() and d.get_world_size() > 1:
            return int(d.get_rank())
    except Exception:
        pass
    return None
