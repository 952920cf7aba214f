"""Loads a pickle with CPython's own pickle module and prints it as JSON: the reference the
TypeScript reader is compared against. Tuples become lists, bytes become {"bytes": [...]}."""
import json
import pickle
import sys


def plain(v):
    if isinstance(v, (list, tuple, set, frozenset)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k) if not isinstance(k, bool) else ("True" if k else "False"): plain(x) for k, x in v.items()}
    if isinstance(v, (bytes, bytearray)):
        return {"bytes": list(v)}
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 2**53:
        return {"bigint": str(v)}
    return v


with open(sys.argv[1], "rb") as f:
    print(json.dumps(plain(pickle.load(f))))
