"""The agent's settings, from environment variables set by the launcher."""
import os

# Sized so that a dump stays under ~200 MB: a 2.11 trace entry with Python stacks takes ~65 bytes
# in the pickle, one with C++ stacks several times more.
DEFAULT_MAX_ENTRIES = {"python": 2_000_000, "all": 400_000}


class Config(object):
    def __init__(self, env=None):
        env = os.environ if env is None else env
        self.enabled = env.get("HEADROOM_AGENT") == "1"
        self.runs_dir = env.get("HEADROOM_RUNS_DIR") or os.path.join(os.getcwd(), ".headroom", "runs")
        self.run_id = env.get("HEADROOM_RUN_ID") or ""
        self.socket = env.get("HEADROOM_SOCKET") or ""
        self.token = env.get("HEADROOM_TOKEN") or ""
        self.stacks = env.get("HEADROOM_STACKS", "python")
        if self.stacks not in ("python", "all"):
            self.stacks = "python"
        # 'alloc', not torch's default 'all': on torch 2.11 context='all' breaks backward through
        # non-reentrant activation checkpointing, and Headroom must never break a workload.
        self.context = env.get("HEADROOM_CONTEXT", "alloc")
        if self.context not in ("state", "alloc", "all"):
            self.context = "alloc"
        self.max_entries = _int(env.get("HEADROOM_MAX_ENTRIES"), DEFAULT_MAX_ENTRIES[self.stacks])
        # Module scopes (modules.py): off (the default: ~20 us per module call), on, or auto (off
        # once they cost more than 1 % of the process's time).
        self.modules = env.get("HEADROOM_MODULES", "off")
        if self.modules not in ("auto", "on", "off"):
            self.modules = "off"
        # Parameter names for gradients and optimizer state (params.py): on unless "off".
        self.params = env.get("HEADROOM_PARAMS", "on") != "off"
        # Tests only: params.py records CPU tensors too (a CPU torch has no CUDA tensor to record).
        self.params_cpu = env.get("HEADROOM_PARAMS_CPU") == "1"
        # window (the default): stacks only in windows (window.py); full: every event, as PyTorch's
        # recorder alone (~1.2x on a launch-bound loop).
        self.record = env.get("HEADROOM_RECORD", "window")
        if self.record not in ("window", "full"):
            self.record = "window"
        self.window_calls = max(1, _int(env.get("HEADROOM_WINDOW_CALLS"), 6))
        self.window_quiet = max(1, _int(env.get("HEADROOM_WINDOW_QUIET"), 4))
        self.sample_ms = max(10, _int(env.get("HEADROOM_SAMPLE_MS"), 100))
        self.cap_gib = _float(env.get("HEADROOM_CAP_GIB"), 0.0)
        # For costing the agent's parts one at a time (test/gpu/capture/overhead/costs.py), not a
        # user setting ("backward/sampler"): "backward" leaves backward() unwrapped, "sampler" starts no sampler thread.
        self.cost_off = set(p for p in env.get("HEADROOM_COST_OFF", "").replace("/", ",").split(",") if p)
        # A peak snapshot is taken when max_allocated grew by this fraction since the last one,
        # at most every peak_interval_s seconds.
        self.peak_margin = _float(env.get("HEADROOM_PEAK_MARGIN"), 0.05)
        self.peak_interval_s = _float(env.get("HEADROOM_PEAK_INTERVAL_S"), 10.0)
        self.rank = _optint(env.get("RANK"))
        self.local_rank = _optint(env.get("LOCAL_RANK"))
        self.world_size = _optint(env.get("WORLD_SIZE"))
        self.restart = _optint(env.get("TORCHELASTIC_RESTART_COUNT"))


def _int(v, default):
    try:
        return int(v)
    except (TypeError, ValueError):
        return default


def _optint(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def _float(v, default):
    try:
        return float(v)
    except (TypeError, ValueError):
        return default
