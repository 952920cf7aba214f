"""Samples the caching allocator's figures on a thread, and asks for peak snapshots."""
import threading
import time

from .runfolder import now_us
from .stats import read

# memory_stats() keys -> sample fields. Read in one call per device: each of memory_allocated(),
# memory_reserved()... would build the same dict again.
FIELDS = (
    ("allocated", "allocated_bytes.all.current"),
    ("reserved", "reserved_bytes.all.current"),
    ("active", "active_bytes.all.current"),
    ("inactive_split", "inactive_split_bytes.all.current"),
    ("requested", "requested_bytes.all.current"),
    ("max_allocated", "allocated_bytes.all.peak"),
    ("max_reserved", "reserved_bytes.all.peak"),
    ("max_requested", "requested_bytes.all.peak"),
    ("retries", "num_alloc_retries"),
    ("ooms", "num_ooms"),
)
KEYS = tuple(key for _, key in FIELDS)


class Sampler(object):
    """Never calls reset_peak_memory_stats: the workload's own figures must not change."""

    def __init__(self, torch, config, emit, on_peak, log):
        self.torch = torch
        self.interval = config.sample_ms / 1000.0
        self.emit = emit
        self.on_peak = on_peak
        self.log = log
        self._stop = threading.Event()
        self._thread = None
        self.last = {}

    def start(self):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="headroom-sampler", daemon=True)
        self._thread.start()

    def stop(self, timeout=2.0):
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def pause(self):
        """Around a fork: the thread ends (it wakes at once) and resume() starts a new one."""
        if self._thread is not None and self._thread.is_alive() and not self._stop.is_set():
            self.stop(1.0)
            self._paused = True

    def resume(self):
        if getattr(self, "_paused", False):
            self._paused = False
            self.start()

    def devices(self):
        cuda = self.torch.cuda
        return [d for d in range(cuda.device_count()) if d == cuda.current_device() or cuda.memory_reserved(d) > 0]

    def sample(self, device):
        cuda = self.torch.cuda
        stats = read(self.torch, device, KEYS)
        s = {"t": now_us(), "device": device}
        for name, key in FIELDS:
            s[name] = stats[key]
        used = getattr(cuda, "device_memory_used", None)
        try:
            if used is not None:
                s["device_used"] = int(used(device))
            # cudaMemGetInfo needs the device's context, which exists once it reserved memory.
            if s["reserved"] > 0 or device == cuda.current_device():
                free, total = cuda.mem_get_info(device)
                s["device_total"] = int(total)
                s.setdefault("device_used", int(total - free))
        except Exception:
            pass
        return s

    def _run(self):
        failures = 0
        while not self._stop.wait(self.interval):
            try:
                for d in self.devices():
                    s = self.sample(d)
                    self.last[d] = s
                    self.emit(s)
                    self.on_peak(s)
                failures = 0
            except Exception as e:
                failures += 1
                if failures in (1, 10, 100):
                    self.log("error", "sampling failed (%d times): %s: %s" % (failures, type(e).__name__, e))
                time.sleep(min(5.0, self.interval * failures))
