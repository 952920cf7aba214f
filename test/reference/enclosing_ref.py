"""The def/class enclosing each line of each Python file named on stdin, by Python's own ast: the
reference for core/source/enclosing.ts. Prints one JSON object: {file: {line: qualname}}, for the
lines of every simple statement (compound statements' bodies are covered by their own statements);
module-level lines are left out. Files that do not parse are left out."""
import ast
import json
import sys

COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor, ast.While,
            ast.With, ast.AsyncWith, ast.Try) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ()) + \
           ((ast.Match,) if hasattr(ast, "Match") else ())


def walk(body, names, out):
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            inner = names + [node.name]
            # The header line (and a multi-line signature) belongs to the def, as a frame there would.
            first = node.body[0].lineno if node.body else node.lineno
            for ln in range(node.lineno, first):
                out[ln] = ".".join(inner)
            walk(node.body, inner, out)
        elif isinstance(node, COMPOUND):
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                for child in getattr(node, field, []) or []:
                    walk(getattr(child, "body", None) if isinstance(child, (ast.ExceptHandler,) + ((ast.match_case,) if hasattr(ast, "match_case") else ())) else [child], names, out)
        elif names:
            for ln in range(node.lineno, node.end_lineno + 1):
                out[ln] = ".".join(names)


result = {}
for path in sys.stdin.read().split("\n"):
    if not path:
        continue
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read())
    except (SyntaxError, ValueError, OSError, RecursionError):
        continue
    out = {}
    walk(tree.body, [], out)
    result[path] = out
json.dump(result, sys.stdout)
