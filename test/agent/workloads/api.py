"""torch_headroom's in-process entry points on fakecuda's device. argv: MODE OUT.
MODE record: record() around part of the script, CUDA started before it and used after it.
MODE decorator: record() as a decorator, twice (one recording per process: the second call warns).
MODE lightning / transformers: the callbacks, driven in their frameworks' order (stand-in base
classes); lightning also launches a child process between naming the run and arming the agent,
as Lightning launches its ranks. Prints one JSON line of what it saw, then "done"."""
import json
import os
import subprocess
import sys
import warnings

import fakecuda
import torch
import torch_headroom

mode, out = sys.argv[1], sys.argv[2]
fakecuda.install()
seen = {}
if mode == "child":
    fakecuda.use(2 << 20)
    print("child done")
    sys.exit(0)
if mode == "record":
    fakecuda.use(8 << 20)
    with torch_headroom.record(out=out, record="full", sampleMs=10) as rec:
        for _ in range(5):
            fakecuda.use(4 << 20)
            fakecuda.step()
    fakecuda.use(64 << 20)  # after the block: not recorded
    fakecuda.step()
    seen["path"] = rec.path
elif mode == "decorator":
    rec = torch_headroom.record(out=out, sampleMs=10)

    @rec
    def train(n):
        for _ in range(n):
            fakecuda.use(4 << 20)
            fakecuda.step()

    train(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = torch_headroom.record(out=out).start()
    seen.update(path=rec.path, again=again.path, warned=[str(w.message) for w in caught])
elif mode == "lightning":
    from torch_headroom.lightning import HeadroomCallback

    cb = HeadroomCallback(out=out, record="full", sampleMs=10)
    child = subprocess.run([sys.executable, __file__, "child", out], capture_output=True, text=True)
    seen["child"] = [child.returncode, child.stdout.strip()]
    cb.setup(None, None, "fit")
    fakecuda.use(8 << 20)
    fakecuda.step()
    cb.teardown(None, None, "fit")
    seen["path"] = cb.path
elif mode == "transformers":
    from torch_headroom.transformers import HeadroomCallback

    cb = HeadroomCallback(out=out, sampleMs=10)
    fakecuda.use(8 << 20)  # the Trainer moves the model after the callback is made
    fakecuda.step()
    cb.on_train_end(None, None, None, model=None)
    seen["path"] = cb.path
print(json.dumps(seen))
print("done")
