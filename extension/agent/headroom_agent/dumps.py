"""Snapshot dumps: at exit, at OOM, on demand and at new peaks.

A dump runs on the workload's own thread (a safe point, atexit) or in the allocator's OOM observer,
never in a signal handler: the agent installs none. A dump asked for while the same thread is
already dumping is skipped rather than waited for, so no thread ever waits on itself.
"""
import os
import threading
import time

from .runfolder import now_us

DUMP_WAIT_S = 60.0


class Dumps(object):
    """Mixed into the Recorder: needs torch, folder, channel, log, pid, history and claim()."""

    def _init_dumps(self):
        self.seq = 0
        self._dump_lock = threading.Lock()
        self._dumping = None

    def dump(self, kind, replace=False, extra=None):
        if not self.recorded or os.getpid() != self.pid:
            return None
        me = threading.get_ident()
        if self._dumping == me:
            self.log("info", "the %s snapshot was skipped: this thread is already writing one" % kind)
            return None
        if not self.claim(kind == "oom"):
            return None
        if not self._dump_lock.acquire(True, DUMP_WAIT_S):
            self.log("warning", "the %s snapshot was skipped: another snapshot took over %d s" % (kind, DUMP_WAIT_S))
            return None
        self._dumping = me
        try:
            return self._write(kind, replace, extra)
        finally:
            self._dumping = None
            self._dump_lock.release()

    def _write(self, kind, replace, extra):
        self.seq += 1
        name = "snapshot-%s.pickle" % kind if replace else "snapshot-%s-%d.pickle" % (kind, self.seq)
        path = self.folder.file(name)
        tmp = self.folder.file(".%s.%d.tmp" % (name, os.getpid()))
        t0 = time.time()
        try:
            self.torch.cuda.memory._dump_snapshot(tmp)
            os.replace(tmp, path)
        except Exception as e:
            self.log("error", "could not write the %s snapshot: %s: %s" % (kind, type(e).__name__, e))
            return None
        ev = {"type": "event", "event": "snapshot", "kind": kind, "path": path, "bytes": os.path.getsize(path), "seconds": round(time.time() - t0, 4), "t": now_us(), "trace": self.history}
        ev.update(extra or {})
        self.folder.append("events.jsonl", ev)
        self.channel.send(ev)
        return path

    def _on_oom(self, device, alloc, device_total, device_free):
        # Called with the GIL held, before the OutOfMemoryError is raised: an exception here would
        # replace the OOM, so nothing escapes.
        if self.finished:
            return
        try:
            if not self.claim(True):
                return
            ev = {"type": "event", "event": "oom", "device": device, "alloc": alloc, "device_total": device_total, "device_free": device_free, "t": now_us()}
            self.folder.append("events.jsonl", ev)
            self.channel.send(ev)
            self.dump("oom", extra={"device": device, "alloc": alloc})
        except Exception as e:
            self.log("error", "OOM observer failed: %s" % e)
