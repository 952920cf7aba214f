"""A run folder made from Python: what `headroom run` does before and after a workload (the run's
name, launch.json, the environment that arms the agent), for `python -m torch_headroom`, record()
and the framework callbacks. Same files, same names: the editor and the CLI open either alike."""
import binascii
import json
import os
import re
import sys

from .settings import SETTINGS, check_settings, merge_alloc_conf
import time

def new_run_id(script, now=None):
    """<yyyymmdd-hhmmss>-<script>-<4 hex>, as `headroom run` names its runs."""
    name = re.sub(r"[^\w.-]+", "_", re.sub(r"\.py$", "", os.path.basename(script or ""))) or "run"
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    return "%s-%s-%s" % (stamp, name, binascii.hexlify(os.urandom(2)).decode())


def shim_dir():
    """The folder holding the sitecustomize shim that arms the agent in child processes: inside the
    installed package, or beside it in the source tree."""
    here = os.path.dirname(os.path.abspath(__file__))
    for d in (os.path.join(here, "_shim"), os.path.dirname(here)):
        if os.path.isfile(os.path.join(d, "sitecustomize.py")):
            return d
    return None


def write_json(path, obj):
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1)
    os.replace(tmp, path)


class Launch(object):
    """One run: its folder under runs_dir, and the environment that arms the agent for it."""

    def __init__(self, runs_dir, script, settings=None, launcher="python", command=None):
        self.settings = check_settings(settings or {})
        self.runs_dir = os.path.abspath(runs_dir or os.path.join(".headroom", "runs"))
        self.run_id = new_run_id(script)
        self.dir = os.path.join(self.runs_dir, self.run_id)
        self.launcher = launcher
        self.command = list(command if command is not None else sys.argv)

    def env(self, base=None):
        """What to set in os.environ: the agent armed, the run named, the settings, and the shim
        first on PYTHONPATH so that child processes (torchrun's workers, spawned ranks) record too."""
        base = os.environ if base is None else base
        env = {"HEADROOM_AGENT": "1", "HEADROOM_RUNS_DIR": self.runs_dir, "HEADROOM_RUN_ID": self.run_id}
        for key, (var, _) in SETTINGS.items():
            if key in self.settings:
                env[var] = str(self.settings[key])
        shim = shim_dir()
        if shim:
            rest = base.get("PYTHONPATH")
            env["PYTHONPATH"] = shim + (os.pathsep + rest if rest else "")
        knobs = self.settings.get("allocConf")
        if knobs:
            key = "PYTORCH_ALLOC_CONF" if "PYTORCH_ALLOC_CONF" in base and "PYTORCH_CUDA_ALLOC_CONF" not in base else "PYTORCH_CUDA_ALLOC_CONF"
            env[key] = merge_alloc_conf(base.get(key), knobs)
        return env

    def begin(self):
        os.makedirs(self.dir, exist_ok=True)
        started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        write_json(os.path.join(self.dir, "launch.json"), {"command": self.command, "cwd": os.getcwd(), "started": started, "launcher": self.launcher, "settings": self.settings, "status": "running"})

    def end(self, code, signal=None, error=None):
        """The end as the launcher saw it, in launch.json and the main process's meta.json (as
        `headroom run` records it). Never raises: the workload's own ending comes first."""
        ended = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        for name, extra in (("launch.json", dict({"exit_code": code, "signal": signal, "ended": ended, "status": "ended"}, **({"error": error} if error else {}))), ("meta.json", {"launcher_exit_code": code, "launcher_signal": signal, "exit_code": code})):
            path = os.path.join(self.dir, name)
            try:
                with open(path) as f:
                    obj = json.load(f)
                obj.update(extra)
                write_json(path, obj)
            except Exception:
                pass
