"""Plays a recorded run's samples to the editor over the real channel, announces a peak snapshot
recorded from train.py when REPLAY_SNAPSHOT names one, then holds the last samples.

CI has no GPU, so this stands in for a live workload in the end-to-end test (and only there): the
launcher, the environment, the socket, the token and the extension are all the real ones.
"""
import json
import os
import shutil
import time

from headroom_agent.channel import Channel


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    samples = [json.loads(line) for line in open(os.path.join(here, "recorded_samples.jsonl")) if line.strip()]
    hello = {"pid": os.getpid(), "rank": None, "local_rank": None, "world_size": None, "run_dir": ""}
    chan = Channel(os.environ["HEADROOM_SOCKET"], os.environ["HEADROOM_TOKEN"], lambda cmd: None, lambda *a: None)
    chan.start(hello)
    for s in samples:
        chan.send(dict(s, type="sample"))
        time.sleep(0.02)
    print("replayed %d samples" % len(samples), flush=True)
    snap = os.environ.get("REPLAY_SNAPSHOT")
    if snap:
        # A peak snapshot as the agent writes one: into the run folder, then announced.
        path = os.path.join(os.environ["HEADROOM_RUNS_DIR"], os.environ["HEADROOM_RUN_ID"], "snapshot-peak.pickle")
        shutil.copyfile(snap, path)
        chan.send({"type": "event", "event": "snapshot", "kind": "peak", "path": path, "bytes": os.path.getsize(path), "t": int(time.time() * 1e6)})
    time.sleep(float(os.environ.get("REPLAY_HOLD_S", "30")))
    chan.close()


if __name__ == "__main__":
    main()
