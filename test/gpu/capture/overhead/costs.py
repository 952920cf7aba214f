"""Costs the recorder's parts on loop.py, interleaved: plain, PyTorch's recorder (full, trace without
stacks, state only, a first-iterations window) and `headroom run` in each mode given on the command
line (HEADROOM_CLI, HEADROOM_NODE). Prints medians and minimums of the iterations past the 20th,
and ratios to plain. A mode hr-MODE+KEY=VALUE sets HEADROOM_KEY (to cost a part, e.g. hr-full+COST_OFF=backward/sampler);
agent-MODE runs the agent without the launcher (PYTHONPATH and HEADROOM_* set here: no socket, no
Node process beside it), to tell the agent's cost from the launcher's. Usage: costs.py ROUNDS [--gpu-bound] [--compile] [--iters N] [--modes a,b,...]"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
rounds = int(sys.argv[1])
extra = [a for a in ("--gpu-bound", "--compile") if a in sys.argv]
iters = ["--iters", sys.argv[sys.argv.index("--iters") + 1]] if "--iters" in sys.argv else ["--iters", "40"] if "--gpu-bound" in sys.argv else []
modes = sys.argv[sys.argv.index("--modes") + 1].split(",") if "--modes" in sys.argv else ["plain", "full", "trace", "state", "window", "hr-full", "hr-default"]
node, cli = os.environ.get("HEADROOM_NODE", "node"), os.environ["HEADROOM_CLI"]
runs = tempfile.mkdtemp(prefix="headroom-costs-")


def once(mode):
    cmd = [sys.executable, os.path.join(HERE, "loop.py")] + extra + iters
    env = dict(os.environ)
    # hr-full+SAMPLE_MS=600000: a part turned off through the agent's HEADROOM_* settings.
    base, *knobs = mode.split("+")
    for k in knobs:
        name, _, value = k.partition("=")
        env["HEADROOM_" + name] = value
    if base in ("full", "trace", "state", "window", "early"):
        env["PROBE_RECORD"] = base
    elif base.startswith("hr-"):
        flag = [] if base == "hr-default" else ["--record", base[3:]]
        cmd = [node, cli, "run", "--out", runs] + flag + ["--"] + cmd
    elif base.startswith("agent-"):
        agent = os.environ.get("HEADROOM_AGENT_DIR") or os.path.join(HERE, "..", "..", "..", "..", "extension", "agent")
        env.update(HEADROOM_AGENT="1", HEADROOM_RUNS_DIR=runs, HEADROOM_RECORD=base[6:], PYTHONPATH=os.path.abspath(agent))
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    line = [l for l in r.stdout.splitlines() if l.startswith("PROBE ")]
    if r.returncode != 0 or not line:
        raise SystemExit("%s failed (%d): %s" % (mode, r.returncode, (r.stderr or r.stdout)[-2000:]))
    return json.loads(line[-1][6:])


res = {m: [] for m in modes}
skip = 5 if "--gpu-bound" in sys.argv else 20
for i in range(rounds):
    for m in modes:
        out = once(m)
        t = out["times"][skip:]
        c = out.get("cpu", [0.0] * len(out["times"]))[skip:]
        res[m].append({"median": statistics.median(t), "min": min(t), "cpu": statistics.median(c), "loss": out["loss"], "peak": out["requested_peak"]})
base_med = statistics.median(r["median"] for r in res["plain"])
base_min = min(r["min"] for r in res["plain"])
base_cpu = statistics.median(r["cpu"] for r in res["plain"])
print("%-12s %12s %10s %9s %9s %10s %9s  %s" % ("mode", "median (ms)", "min (ms)", "vs plain", "min vs", "CPU (ms)", "CPU vs", "runs' medians"))
for m in modes:
    med = statistics.median(r["median"] for r in res[m])
    mn = min(r["min"] for r in res[m])
    cpu = statistics.median(r["cpu"] for r in res[m])
    print("%-12s %12.2f %10.2f %8.3fx %8.3fx %10.2f %8.3fx  %s" % (m, med * 1e3, mn * 1e3, med / base_med, mn / base_min, cpu * 1e3, cpu / (base_cpu or 1), ", ".join("%.2f" % (r["median"] * 1e3) for r in res[m])))
print("COSTS " + json.dumps(res))
print("RUNS " + runs)
