"""Streams N samples through the agent's own channel and run folder, the way the recorder does,
and exits 0. Used to kill the editor side mid-run. argv: RUN_DIR N."""
import os
import sys
import time

from headroom_agent.channel import Channel
from headroom_agent.runfolder import RunFolder, now_us

run_dir, n = sys.argv[1], int(sys.argv[2])
folder = RunFolder()
folder.claim([run_dir])
chan = Channel(os.environ["HEADROOM_SOCKET"], os.environ["HEADROOM_TOKEN"], lambda c: None, folder.log)
chan.start({"pid": os.getpid(), "rank": None, "local_rank": None, "world_size": None, "run_dir": run_dir})
for i in range(n):
    s = {"t": now_us(), "device": 0, "allocated": i, "reserved": 2 * i, "active": i, "inactive_split": 0, "requested": i, "max_allocated": i, "max_reserved": 2 * i, "max_requested": i, "retries": 0, "ooms": 0}
    folder.append("samples.jsonl", s)
    chan.send(dict(s, type="sample"))
    time.sleep(0.01)
folder.write_json("meta.json", {"status": "ended", "samples": n})
chan.close()
print("emitted", n)
