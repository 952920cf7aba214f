"""The run folder: everything the agent records lands here first, so nothing depends on the editor."""
import json
import os
import threading
import time


def now_us():
    return time.time_ns() // 1000


class RunFolder(object):
    def __init__(self, path):
        self.path = path
        self._lock = threading.Lock()
        self._files = {}
        self._made = False

    def ensure(self):
        if not self._made:
            os.makedirs(self.path, exist_ok=True)
            self._made = True
        return self.path

    def file(self, name):
        return os.path.join(self.path, name)

    def write_json(self, name, obj):
        """Atomic: a reader never sees half a file, even if the process dies mid-write."""
        self.ensure()
        tmp = self.file(".%s.%d.tmp" % (name, os.getpid()))
        with open(tmp, "w") as f:
            json.dump(obj, f, indent=1, sort_keys=True, default=str)
        os.replace(tmp, self.file(name))

    def read_json(self, name):
        try:
            with open(self.file(name)) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def append(self, name, obj):
        """One JSON line, flushed at once (a crash loses at most the line being written)."""
        line = json.dumps(obj, separators=(",", ":"), default=str) + "\n"
        with self._lock:
            f = self._files.get(name)
            if f is None:
                self.ensure()
                f = open(self.file(name), "a", buffering=1)
                self._files[name] = f
            f.write(line)

    def log(self, level, message):
        try:
            self.append("agent.log.jsonl", {"t": now_us(), "level": level, "pid": os.getpid(), "message": message})
        except Exception:
            pass

    def close(self):
        with self._lock:
            for f in self._files.values():
                try:
                    f.close()
                except Exception:
                    pass
            self._files.clear()
