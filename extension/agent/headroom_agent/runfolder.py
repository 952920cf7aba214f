"""The run folder: everything the agent records lands here first, so nothing depends on the editor.

A process's folder is claimed only when it first holds CUDA memory: until then writes are kept in
memory (bounded), and a process that never claims leaves nothing on disk. Claiming creates
meta.json exclusively (whole, never empty), so two processes never share a folder.
"""
import errno
import json
import os
import threading
import time

EARLY_LINES = 20000

# File objects of the parent, kept alive (never flushed, never closed) in a forked child.
_orphans = []


def now_us():
    return time.time_ns() // 1000


def _create_exclusive(path, obj):
    """Creates `path` holding `obj` as JSON, whole or not at all; False if it exists. (A link to a
    written temporary file: a reader never sees it empty, and two processes never both win.)"""
    tmp = "%s.%d.claim" % (path, os.getpid())
    with open(tmp, "w") as f:
        json.dump(obj, f)
    try:
        os.link(tmp, path)
        return True
    except OSError as e:
        if e.errno == errno.EEXIST:
            return False
        # No hard links here (some network and FAT file systems): exclusive, written at once.
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except OSError as e2:
            if e2.errno == errno.EEXIST:
                return False
            raise
        with os.fdopen(fd, "w") as f:
            json.dump(obj, f)
        return True
    finally:
        os.unlink(tmp)


class RunFolder(object):
    def __init__(self):
        self.path = None
        self._lock = threading.Lock()
        self._files = {}
        self._early = []
        self._early_json = {}

    @property
    def claimed(self):
        return self.path is not None

    def claim(self, candidates):
        """Takes the first free folder of `candidates`, then writes what was kept. Returns its path,
        or None when none could be made (an unwritable runs folder: the workload never notices)."""
        with self._lock:
            if self.path is not None:
                return self.path
            for path in candidates:
                try:
                    os.makedirs(path, exist_ok=True)
                    if not _create_exclusive(os.path.join(path, "meta.json"), {"pid": os.getpid(), "status": "starting"}):
                        continue
                except OSError:
                    return None
                self.path = path
                break
            else:
                return None
            early, self._early = self._early, []
            for name, line in early:
                self._write_line(name, line)
            for name, obj in self._early_json.items():
                self._write_json(name, obj)
            self._early_json = {}
            return self.path

    def file(self, name):
        return os.path.join(self.path, name) if self.path else None

    def write_json(self, name, obj):
        """Atomic: a reader never sees half a file, even if the process dies mid-write."""
        with self._lock:
            if self.path is None:
                self._early_json[name] = obj
                return
        self._write_json(name, obj)

    def _write_json(self, name, obj):
        tmp = self.file(".%s.%d.tmp" % (name, os.getpid()))
        with open(tmp, "w") as f:
            json.dump(obj, f, indent=1, sort_keys=True, default=str)
        os.replace(tmp, self.file(name))

    def read_json(self, name):
        if self.path is None:
            return self._early_json.get(name)
        try:
            with open(self.file(name)) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def append(self, name, obj):
        """One JSON line, flushed at once (a crash loses at most the line being written)."""
        self.append_line(name, json.dumps(obj, separators=(",", ":"), default=str) + "\n")

    def append_line(self, name, line):
        """A line already made (a caller that counts the bytes it writes)."""
        with self._lock:
            if self.path is None:
                if len(self._early) < EARLY_LINES:
                    self._early.append((name, line))
                return
            self._write_line(name, line)

    def _write_line(self, name, line):
        f = self._files.get(name)
        if f is None:
            f = open(self.file(name), "a", buffering=1)
            self._files[name] = f
        f.write(line)

    def log(self, level, message):
        try:
            self.append("agent.log.jsonl", {"t": now_us(), "level": level, "pid": os.getpid(), "message": message})
        except Exception:
            pass

    def early_lines(self, name):
        """What was kept for `name` before any claim: (name, line) pairs."""
        with self._lock:
            return [(n, line) for n, line in self._early if n == name]

    def forked(self):
        """In a forked child: nothing of the parent's folder. Its lock may have been held by a thread
        that does not exist here, and its open files must never be flushed or closed from here."""
        _orphans.append(self._files)
        self._lock = threading.Lock()
        self._files = {}
        self._early = []
        self._early_json = {}
        self.path = None

    def close(self):
        with self._lock:
            for f in self._files.values():
                try:
                    f.close()
                except Exception:
                    pass
            self._files.clear()
