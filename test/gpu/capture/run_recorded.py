"""Runs a plain script (unchanged, as __main__) with recording on, then dumps NAME: used for the demo
workload, whose frames must point at the very lines of the script that ships in the demo workspace."""
import runpy
import sys

import common
from common import dump, record

if __name__ == "__main__":
    out, script, name, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    common.out_dir = lambda: out
    record()
    sys.argv = [script] + args
    runpy.run_path(script, run_name="__main__")
    dump(name, {"script": script})
