"""The channel to the editor: JSON lines over a local socket, authenticated by a per-run token.

JSON lines because both ends parse them with their standard library, messages are small and
self-describing, and a human can read a capture of the stream. The agent never waits on it: if the
editor is gone, messages are dropped (the run folder has them all) and the workload never notices.
"""
import json
import os
import socket
import threading
import time

try:
    import queue
except ImportError:  # pragma: no cover
    import Queue as queue


class Channel(object):
    def __init__(self, address, token, hello, on_command, log):
        self.address = address
        self.token = token
        self.hello = hello
        self.on_command = on_command
        self.log = log
        self._queue = queue.Queue(maxsize=2000)
        self._stop = threading.Event()
        self._sock = None
        self._thread = None
        self.dropped = 0

    def start(self):
        if not self.address or not self.token:
            return
        self._thread = threading.Thread(target=self._run, name="headroom-channel", daemon=True)
        self._thread.start()

    def send(self, msg):
        if self._thread is None:
            return
        try:
            self._queue.put_nowait(msg)
        except queue.Full:
            self.dropped += 1

    def close(self, timeout=1.0):
        """Flushes what is queued (briefly), then closes."""
        if self._thread is None:
            return
        deadline = time.time() + timeout
        while not self._queue.empty() and time.time() < deadline and self._sock is not None:
            time.sleep(0.01)
        self._stop.set()
        self._thread.join(timeout)

    def _connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(2.0)
        s.connect(self.address)
        hello = dict(self.hello, type="hello", token=self.token)
        s.sendall((json.dumps(hello) + "\n").encode())
        s.settimeout(0.05)
        return s

    def _run(self):
        buf = b""
        backoff = 0.2
        while not self._stop.is_set():
            if self._sock is None:
                try:
                    self._sock = self._connect()
                    backoff = 0.2
                except OSError:
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, 5.0)
                    continue
            try:
                try:
                    msg = self._queue.get(timeout=0.05)
                    self._sock.sendall((json.dumps(msg, separators=(",", ":"), default=str) + "\n").encode())
                except queue.Empty:
                    pass
                try:
                    data = self._sock.recv(65536)
                    if not data:
                        raise OSError("the editor closed the channel")
                    buf += data
                    while b"\n" in buf:
                        line, buf = buf.split(b"\n", 1)
                        self._command(line)
                except socket.timeout:
                    pass
            except OSError as e:
                self.log("info", "channel to the editor lost (%s); recording goes on to disk" % e)
                try:
                    self._sock.close()
                except OSError:
                    pass
                self._sock = None
                buf = b""
        if self._sock is not None:
            try:
                self._sock.close()
            except OSError:
                pass

    def _command(self, line):
        try:
            cmd = json.loads(line.decode())
        except ValueError:
            return
        if isinstance(cmd, dict) and isinstance(cmd.get("type"), str):
            try:
                self.on_command(cmd)
            except Exception as e:
                self.log("error", "command %r failed: %s" % (cmd.get("type"), e))


def pid_hello(config):
    return {
        "pid": os.getpid(),
        "rank": config.rank,
        "local_rank": config.local_rank,
        "world_size": config.world_size,
        "run_dir": config.run_dir(),
    }
