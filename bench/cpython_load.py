"""The baseline: CPython's pickle.load of the same file, in a fresh process. Prints JSON."""
import json
import pickle
import resource
import sys
import time

before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
t0 = time.perf_counter()
with open(sys.argv[1], "rb") as f:
    pickle.load(f)
ms = (time.perf_counter() - t0) * 1000
print(json.dumps({"loadMs": ms, "rssBefore": before, "maxRss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
