"""Stacks recorded in windows (the default mode): the cost of full recording only while it answers.

PyTorch's recorder costs ~20 % on a launch-bound loop (it captures a Python stack per allocation).
A training loop repeats itself, so the first steps hold its peak and its lines: the window records
from the first CUDA use until the peak stopped rising for `quiet` backward() calls (and at least
`min_calls` of them), dumps the peak snapshot, and turns the recorder off. The sampler keeps the
live figures (every sample carries PyTorch's exact peaks). A window reopens at once when the peak
rises (seen at a backward(), or by the sampler by the margin), when reserved memory nears the
device's total, or when the model switches between train() and eval() (an evaluation pass is a
new pattern, and where eval leaks live). Turning the recorder on imports nothing, so it may happen
on the sampler's thread. A window closes only at a backward(), so an evaluation loop stays
recorded until training resumes, or until the exit snapshot. A window that saw the peak rise
replaces the peak snapshot; another keeps its own. Missed: events between windows (a transient
new peak is in the figures, and in a snapshot only if it comes back), and loops with no
backward() (inference) are recorded in full.
"""
import threading
import time

from .runfolder import now_us
from .stats import read


CHECK_EVERY_S = 0.001


def peak_allocated(torch):
    """allocated_bytes.all.peak of the current device, after each backward(): read from C (stats.py)."""
    key = "allocated_bytes.all.peak"
    return read(torch, torch.cuda.current_device(), (key,))[key]


class Window(object):
    def __init__(self, recorder):
        self.r = recorder
        c = recorder.config
        self.min_calls = c.window_calls
        self.quiet = c.window_quiet
        self.open = False
        self.count = 0
        self.calls = 0
        self.quiet_calls = 0
        self.peak = 0
        self.peak_at_open = 0
        self.lock = threading.Lock()
        self.checked = 0.0
        # False once the workload turned PyTorch's recorder on or off itself: windows stop.
        self.managed = True
        # Reserved bytes when "near the device's total" last opened a window: it opens another only
        # when reserved climbs above that (a model that sits at 95 % would otherwise never close one).
        self.near_at = 0

    def watch_phases(self, torch):
        """Wraps nn.Module.train (eval() calls it) to see the workload switch phases. Frameworks call
        model.train() every step (HF Trainer): only a change of the outermost call's mode counts."""
        orig = torch.nn.Module.train
        state = {"depth": 0, "mode": None}
        window = self

        def train(module, mode=True):
            if state["mode"] is None and state["depth"] == 0:
                # Modules start in training mode: the first eval() is already a switch.
                state["mode"] = bool(getattr(module, "training", True))
            state["depth"] += 1
            try:
                return orig(module, mode)
            finally:
                state["depth"] -= 1
                if state["depth"] == 0 and isinstance(mode, bool) and mode != state["mode"]:
                    state["mode"] = mode
                    window.reopen("the model switched to %s()" % ("train" if mode else "eval"))

        train.__wrapped__ = orig
        train.__doc__ = orig.__doc__
        train.__name__ = orig.__name__
        train.__qualname__ = orig.__qualname__
        torch.nn.Module.train = train

    def _peak(self):
        return peak_allocated(self.r.torch)

    def opened(self, reason="start"):
        """The recorder was just turned on (the first CUDA use, or a reopening)."""
        self.open = True
        self.count += 1
        self.calls = self.quiet_calls = 0
        self.peak = self.peak_at_open = self._peak()
        self._event("window_open", reason=reason)

    def user_took_over(self, enabled):
        """The workload called _record_memory_history itself: the recorder is its own from now on."""
        self.r.history = enabled not in (None, False)
        if self.managed:
            self.managed = False
            self.open = False
            self._event("window_user", reason="the workload records memory history itself: windows stop")

    def safe_point(self):
        """After each backward(), on the workload's thread. Closed, it reopens on any rise of the
        peak since the last window, looked at most every CHECK_EVERY_S (a stats read costs tens of us:
        only loops faster than that skip some): a leak that lifts the peak each step is recorded
        from the next step on."""
        if not self.managed:
            return
        if not self.open:
            now = time.perf_counter()
            if now - self.checked < CHECK_EVERY_S:
                return
            self.checked = now
            peak = self._peak()
            if peak > self.peak:
                self.reopen("peak rose to %d bytes" % peak)
            return
        with self.lock:
            if self.open:
                self._step()

    def _step(self):
        self.calls += 1
        peak = self._peak()
        if peak > self.peak:
            self.peak = peak
            self.quiet_calls = 0
        else:
            self.quiet_calls += 1
        if self.calls >= self.min_calls and self.quiet_calls >= self.quiet:
            self.close()

    def close(self):
        # The peak snapshot only from a window the peak rose in: its trace then holds the peak. A
        # window reopened after a rise it did not see again keeps its own snapshot.
        rose = self.peak > self.peak_at_open or self.count == 1
        if rose:
            self.r.dump("peak", replace=True, extra={"max_allocated": self.peak, "window": self.count})
        else:
            self.r.dump("window", extra={"max_allocated": self.peak, "window": self.count})
        self.r.last_peak_dump = self.peak
        self.r.stop_history()
        self.open = False
        self._event("window_close", calls=self.calls, max_allocated=self.peak, peak_snapshot=rose)

    def on_sample(self, s):
        """Sampler thread: reopens a window on a rise of the peak or near the device's limit."""
        if self.open or not self.managed:
            return
        if s["max_allocated"] > self.r.last_peak_dump * (1 + self.r.config.peak_margin):
            reason = "peak rose to %d bytes" % s["max_allocated"]
        elif s.get("device_total") and s["reserved"] > max(0.9 * s["device_total"], self.near_at):
            self.near_at = s["reserved"]
            reason = "reserved memory near the device's total"
        else:
            return
        self.reopen(reason)

    def reopen(self, reason):
        """Any thread: turns the recorder back on, unless a window is open."""
        if self.open or not self.managed:
            return
        with self.lock:
            if not self.open and self.managed:
                self.r.start_history()
                self.opened(reason)

    def _event(self, name, **kw):
        ev = {"type": "event", "event": name, "window": self.count, "t": now_us()}
        ev.update(kw)
        self.r.folder.append("events.jsonl", ev)
        self.r.channel.send(ev)
