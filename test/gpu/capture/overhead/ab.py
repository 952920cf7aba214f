"""The agent's own cost inside one process, where whole-run comparisons drown in the host's noise
(±15 % between identical runs): run under `headroom run` (any mode), it times loop.py's launch-bound
step in alternating blocks with the agent's parts on (the backward() wrapper, the sampler thread,
the channel's thread) and off, the recorder left as the mode set it. Neighbouring blocks see the
same host, so the ratio of each pair is the parts' cost. Prints one JSON line: per-pair ratios and
their median. Usage: headroom run [--record full] -- python ab.py [PAIRS] [BLOCK]"""
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loop import GPT, train_step  # noqa: E402

from headroom_agent import boot  # noqa: E402  (on PYTHONPATH under headroom run)


def parts(on):
    agent = boot._agent
    r = agent.recorder
    for owner in (torch.Tensor, torch.autograd):
        cur = owner.backward
        if on and getattr(parts, "saved", None):
            owner.backward = parts.saved[owner]
        elif not on and hasattr(cur, "__wrapped__"):
            parts.saved = getattr(parts, "saved", {})
            parts.saved[owner] = cur
            owner.backward = cur.__wrapped__
    s = r.sampler
    if s is not None:
        running = s._thread is not None and s._thread.is_alive()
        if on and not running:
            s.start()
        elif not on and running:
            s.stop()
    if on:
        agent.channel.resume()
    else:
        agent.channel.pause()


def main():
    pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    block = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    torch.manual_seed(0)
    model = GPT(65, 256, 384, 6, 6, 0.1).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    g = torch.Generator(device="cuda").manual_seed(1)

    def step():
        t0 = time.perf_counter()
        train_step(model, model, opt, g, 65, 64, 256)
        return time.perf_counter() - t0

    for _ in range(30):  # past the first window (default mode) and the warm-up
        step()
    ratios, on_ms, off_ms = [], [], []
    for i in range(pairs):
        order = (True, False) if i % 2 == 0 else (False, True)
        got = {}
        for on in order:
            parts(on)
            got[on] = statistics.median(step() for _ in range(block))
        parts(True)
        ratios.append(got[True] / got[False])
        on_ms.append(got[True] * 1e3)
        off_ms.append(got[False] * 1e3)
    mode = boot._agent.config.record
    print("AB " + json.dumps({"mode": mode, "history_on": bool(boot._agent.recorder.history), "median_ratio": statistics.median(ratios), "ratios": [round(x, 4) for x in ratios], "on_ms": statistics.median(on_ms), "off_ms": statistics.median(off_ms)}))


if __name__ == "__main__":
    main()
