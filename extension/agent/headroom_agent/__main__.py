"""python -m headroom_agent [--] script.py args... | -m module args...

Runs a script (or module) as __main__ with Headroom's agent armed, for `torchrun --no-python` and
for anyone who prefers it to the sitecustomize shim. The script sees its own argv, __main__ and
sys.path[0]; its exit code and exceptions pass through. (Tracebacks gain the frames of this
launcher; the sitecustomize shim leaves no trace at all.)
"""
import os
import runpy
import sys


def run_target(argv, prog="headroom_agent"):
    """Runs `script.py args…` or `-m module args…` as __main__, as `python` itself would."""
    if argv[0] == "-m":
        if len(argv) < 2:
            sys.stderr.write("%s: -m needs a module name\n" % prog)
            sys.exit(2)
        sys.argv = [argv[1]] + argv[2:]
        sys.path[0] = os.getcwd()
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        script = argv[0]
        sys.argv = list(argv)
        sys.path[0] = os.path.dirname(os.path.abspath(script))
        runpy.run_path(script, run_name="__main__")


def main():
    argv = sys.argv[1:]
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv or argv[0] in ("-h", "--help"):
        sys.stderr.write(__doc__.strip().split("\n\n")[0] + "\n")
        sys.exit(2 if not argv else 0)
    os.environ["HEADROOM_AGENT"] = "1"  # asked for explicitly; children inherit it
    from . import boot

    boot.install(entry="main")
    run_target(argv)


if __name__ == "__main__":
    main()
