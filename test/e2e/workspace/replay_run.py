"""Plays a recorded run's samples to the editor over the real channel, then holds the last ones.

CI has no GPU, so this stands in for a live workload in the end-to-end test (and only there): the
launcher, the environment, the socket, the token and the extension are all the real ones.
"""
import json
import os
import time

from headroom_agent.channel import Channel


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    samples = [json.loads(line) for line in open(os.path.join(here, "recorded_samples.jsonl")) if line.strip()]
    hello = {"pid": os.getpid(), "rank": None, "local_rank": None, "world_size": None, "run_dir": ""}
    chan = Channel(os.environ["HEADROOM_SOCKET"], os.environ["HEADROOM_TOKEN"], hello, lambda cmd: None, lambda *a: None)
    chan.start()
    for s in samples:
        chan.send(dict(s, type="sample"))
        time.sleep(0.02)
    print("replayed %d samples" % len(samples), flush=True)
    time.sleep(float(os.environ.get("REPLAY_HOLD_S", "30")))
    chan.close()


if __name__ == "__main__":
    main()
