"""The independent truth for the analyzer's class naming. For every Python frame (a .py file,
line > 0) in a snapshot's stacks (segments' blocks and trace entries), the qualified name of the
innermost def or class whose body holds that line, from Python's own parser: `Class.method`,
nested scopes joined by '.' (__qualname__ without <locals>; lambdas and comprehensions are not
scopes here); module level is left out. Writes
X.classes.json ({"file": {"line": "Class.method"}}) beside each X.pickle (or X.pickle.gz).
Usage: python3 classes.py SNAPSHOT.pickle..."""
import ast
import gzip
import json
import pickle
import sys
import tokenize

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_files = {}


def scopes(path):
    """{line: qualname} for one source file (cached), or None when it cannot be read or parsed."""
    if path not in _files:
        table = None
        try:
            with tokenize.open(path) as f:  # honours the file's encoding declaration
                tree = ast.parse(f.read(), filename=path)
        except Exception:  # missing, unreadable, not this Python's syntax, too deep
            tree = None
        if tree is not None:
            table = {}

            def visit(node, prefix):
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, SCOPES):
                        q = prefix + child.name
                        # The body's lines: the header's (decorators, bases, defaults, annotations)
                        # run in the outer scope. Inner scopes, visited after, overwrite their own.
                        first = child.body[0]
                        start = min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", [])])
                        for line in range(start, child.end_lineno + 1):
                            table[line] = q
                        visit(child, q + ".")
                    else:
                        visit(child, prefix)

            try:
                visit(tree, "")
            except RecursionError:
                table = None
        _files[path] = table
    return _files[path]


def frames(snap):
    for seg in snap.get("segments") or []:
        for block in seg.get("blocks") or []:
            yield from block.get("frames") or []
    for trace in snap.get("device_traces") or []:
        for entry in trace:
            yield from entry.get("frames") or []


def classes(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        snap = pickle.load(f)
    seen = {(fr.get("filename"), fr.get("line")) for fr in frames(snap)}
    out = {}
    for file, line in sorted(seen, key=lambda k: (str(k[0]), k[1] if isinstance(k[1], int) else -1)):
        if not (isinstance(file, str) and file.endswith(".py") and isinstance(line, int) and line > 0):
            continue
        table = scopes(file)
        q = table and table.get(line)
        if q:
            out.setdefault(file, {})[str(line)] = q
    base = path[: -len(".gz")] if path.endswith(".gz") else path
    base = base[: -len(".pickle")] if base.endswith(".pickle") else base
    with open(base + ".classes.json", "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    unread = sorted({fi for fi, _ in seen if isinstance(fi, str) and fi.endswith(".py") and scopes(fi) is None})
    print("%s: %d files, %d lines named; %d files unreadable%s" % (
        base + ".classes.json", len(out), sum(map(len, out.values())), len(unread), (" (" + ", ".join(unread[:3]) + ")") if unread else ""))


if __name__ == "__main__":
    sys.setrecursionlimit(20000)
    for p in sys.argv[1:]:
        classes(p)
