"""usage: python -m torch_headroom [OPTIONS] [--] script.py ARGS… | -m module ARGS…

Runs the script with Headroom recording its CUDA memory, as `headroom run` does, without Node:
the allocator's history from the first CUDA use, samples, and snapshots at new peaks, at OOM and
at exit, in OUT/<time>-<script>-<hex>/ (default .headroom/runs). Child processes (torchrun's
workers, spawned ranks) record too. The script sees its own argv, output and exit code.

  --out DIR             where runs go (default .headroom/runs)
  --record window|full  window (default): stacks while the peak rises; full: every event
  --stacks python|all   all adds C++ frames (slower, bigger snapshots)
  --context alloc|all|state
  --modules off|on|auto which nn.Module made each block (torch >= 2.10; ~20 us a module call)
  --max-entries N       the recorder's ring size
  --sample-ms N         live samples every N ms (default 100)
  --cap-gib N           a per-process memory cap, to try a smaller GPU
  --alloc-conf K:V,...  merged into PYTORCH_CUDA_ALLOC_CONF (e.g. expandable_segments:True)
  --quiet               no "recording into" line on stderr

Example: python -m torch_headroom --record full train.py --epochs 1
Then: headroom analyze .headroom/runs/<run>, or open the folder in the editor.
"""
import atexit
import os
import sys

from .launch import Launch
from .settings import parse_alloc_conf

FLAGS = {"--record": "record", "--stacks": "stacks", "--context": "context", "--modules": "modules", "--max-entries": "maxEntries", "--sample-ms": "sampleMs", "--cap-gib": "capGib", "--alloc-conf": "allocConf"}
NUMBERS = ("maxEntries", "sampleMs", "capGib")


class Usage(Exception):
    pass


def parse(argv):
    """(out, settings, quiet, target): the options before the script, then the script's own."""
    out, settings, quiet, i = None, {}, False, 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            i += 1
            break
        if a in ("-h", "--help"):
            raise Usage(None)
        if a == "--quiet":
            quiet, i = True, i + 1
            continue
        name, eq, value = a.partition("=")
        if name == "--out" or name in FLAGS:
            if not eq:
                if i + 1 >= len(argv):
                    raise Usage("%s needs a value" % name)
                value, i = argv[i + 1], i + 1
            i += 1
            if name == "--out":
                out = value
                continue
            key = FLAGS[name]
            try:
                settings[key] = parse_alloc_conf(value) if key == "allocConf" else (float(value) if key == "capGib" else int(value)) if key in NUMBERS else value
            except ValueError as e:
                raise Usage("%s: %s" % (name, e))
            continue
        if a.startswith("-") and a != "-m":
            raise Usage("unknown option %s (the script's own options go after it)" % a)
        break
    target = argv[i:]
    if not target or (target[0] == "-m" and len(target) < 2):
        raise Usage("no script to run: python -m torch_headroom train.py ARGS…")
    return out, settings, quiet, target


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        out, settings, quiet, target = parse(argv)
        launch = Launch(out, target[1] if target[0] == "-m" else target[0], settings, launcher="python", command=[sys.executable] + target)
    except (Usage, ValueError) as e:
        msg = e.args[0] if e.args else None
        if msg is None:
            sys.stdout.write(__doc__.strip() + "\n")
            sys.exit(0)
        sys.stderr.write("torch_headroom: %s (--help for the options)\n" % msg)
        sys.exit(2)
    launch.begin()
    os.environ.update(launch.env())
    if not quiet:
        sys.stderr.write("headroom: recording into %s\n" % launch.dir)
    ending = {"code": None, "signal": None}
    # Registered before the agent's own exit handler, so it runs after it (atexit runs last first).
    atexit.register(lambda: launch.end(ending["code"], ending["signal"]))
    from headroom_agent import boot
    from headroom_agent.__main__ import run_target

    boot.install(entry="main")
    try:
        run_target(target, prog="torch_headroom")
        ending["code"] = 0
    except SystemExit as e:
        ending["code"] = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        raise
    except KeyboardInterrupt:
        ending["signal"] = "SIGINT"  # Python ends on SIGINT itself
        raise
    except BaseException:
        ending["code"] = 1
        raise


if __name__ == "__main__":
    main()
