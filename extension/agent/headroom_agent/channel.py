"""The channel to the editor: JSON lines over a local socket, authenticated by a per-run token.

JSON lines because both ends parse them with their standard library, messages are small and
self-describing, and a human can read a capture of the stream. The agent never waits on it: if the
editor is gone, messages are dropped (the run folder has them all) and the workload never notices.
Its thread wakes on a pipe as well as the socket, so that it stops at once around a fork.
"""
import json
import os
import select
import socket
import threading

try:
    import queue
except ImportError:  # pragma: no cover
    import Queue as queue


class Channel(object):
    def __init__(self, address, token, on_command, log):
        self.address = address
        self.token = token
        self.hello = None
        self.on_command = on_command
        self.log = log
        self._queue = queue.Queue(maxsize=2000)
        self._stop = threading.Event()
        self._sock = None
        self._thread = None
        self._wake = None
        self._buf = b""
        self._closing = False
        self.dropped = 0

    def start(self, hello):
        if not self.address or not self.token or self._thread is not None:
            return
        self.hello = hello
        r, w = os.pipe()
        os.set_blocking(w, False)
        self._wake = (r, w)
        self._spawn()

    def _spawn(self):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="headroom-channel", daemon=True)
        self._thread.start()

    def send(self, msg, wake=True):
        """Queues a message. wake=False leaves it for the thread's next turn (the next sample's
        wake, at most 0.5 s): a wake per backward() would hand the GIL to this thread each step."""
        if self._thread is None:
            return
        try:
            self._queue.put_nowait(msg)
        except queue.Full:
            self.dropped += 1
            return
        if wake:
            self._poke()

    def _poke(self):
        try:
            os.write(self._wake[1], b"x")
        except OSError:  # full: the thread is awake anyway
            pass

    def pause(self, timeout=1.0):
        """Stops the thread (the connection stays open); resume() starts it again."""
        t = self._thread
        if t is None or not t.is_alive():
            return
        self._stop.set()
        self._poke()
        t.join(timeout)

    def resume(self):
        if self._thread is not None and not self._thread.is_alive():
            self._spawn()

    def forked(self):
        """In a forked child: the parent's connection and pipe are not this process's to use."""
        for fd in self._wake or ():
            try:
                os.close(fd)
            except OSError:
                pass
        if self._sock is not None:
            try:
                self._sock.close()
            except OSError:
                pass
        self.__init__(self.address, self.token, self.on_command, self.log)

    def close(self, timeout=1.0):
        """Flushes what is queued (briefly), then closes."""
        if self._thread is None:
            return
        self._closing = True
        self._stop.set()
        self._poke()
        self._thread.join(timeout)

    def _connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(2.0)
        s.connect(self.address)
        hello = dict(self.hello, type="hello", token=self.token)
        s.sendall((json.dumps(hello) + "\n").encode())
        s.settimeout(1.0)
        return s

    def _flush(self):
        while True:
            try:
                msg = self._queue.get_nowait()
            except queue.Empty:
                return
            self._sock.sendall((json.dumps(msg, separators=(",", ":"), default=str) + "\n").encode())

    def _run(self):
        backoff = 0.2
        wake = self._wake[0]
        while True:
            stopping = self._stop.is_set()
            if self._sock is None:
                if stopping:
                    break
                try:
                    self._sock = self._connect()
                    backoff = 0.2
                except OSError:
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, 5.0)
                    continue
            try:
                self._flush()
                if stopping:
                    break
                ready, _, _ = select.select([self._sock, wake], [], [], 0.5)
                if wake in ready:
                    os.read(wake, 4096)
                if self._sock in ready:
                    data = self._sock.recv(65536)
                    if not data:
                        raise OSError("the editor closed the channel")
                    self._buf += data
                    while b"\n" in self._buf:
                        line, self._buf = self._buf.split(b"\n", 1)
                        self._command(line)
            except (OSError, ValueError) as e:
                self.log("info", "channel to the editor lost (%s); recording goes on to disk" % e)
                try:
                    self._sock.close()
                except OSError:
                    pass
                self._sock = None
                self._buf = b""
        if self._closing and self._sock is not None:
            try:
                self._sock.close()
            except OSError:
                pass
            self._sock = None

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


def pid_hello(config, pid, rank, run_dir):
    return {
        "pid": pid,
        "rank": rank,
        "local_rank": config.local_rank,
        "world_size": config.world_size,
        "run_dir": run_dir,
    }
