"""Prints, for each Python file given on stdin (a JSON list of {"path", "source"}), one JSON line:
{"path", "scopes": [{"name", "label", "function", "start", "end", "calls"}]} or {"path", "error"}.
It uses only the standard library's ast module (Python 3.8 or later)."""

import ast
import json
import sys

try:
    import resource

    limit = int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
except Exception:  # noqa: BLE001 - no limit where the platform has none
    pass

sys.setrecursionlimit(2000)
MAX_SCOPES = int(sys.argv[2])


def called(node):
    f = node.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return None


DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def own_nodes(fn):
    """The nodes of fn's own code: not those of the definitions nested in it, whose calls are
    theirs (each node is visited once in all)."""
    todo = list(ast.iter_child_nodes(fn))
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, DEFS):
            todo.extend(ast.iter_child_nodes(n))


def calls(fn):
    """The names fn calls, each once, in the order of the source."""
    found = sorted((n.func.lineno, n.func.col_offset, called(n)) for n in own_nodes(fn) if isinstance(n, ast.Call) and called(n))
    seen, out = {fn.name}, []
    for _, _, c in found:
        if c not in seen:
            seen.add(c)
            out.append(c)
    return out


def scopes(tree):
    out = []
    for n in ast.walk(tree):
        if len(out) >= MAX_SCOPES:
            break
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([n.lineno] + [d.lineno for d in n.decorator_list])
            fn = not isinstance(n, ast.ClassDef)
            kind = "class" if not fn else ("async def" if isinstance(n, ast.AsyncFunctionDef) else "def")
            out.append({"name": n.name, "label": kind + " " + n.name, "function": fn,
                        "start": start, "end": n.end_lineno, "calls": calls(n) if fn else []})
    return out


def main():
    for f in json.load(sys.stdin):
        try:
            tree = ast.parse(f["source"], filename=f["path"])
            line = {"path": f["path"], "scopes": scopes(tree)}
        except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
            line = {"path": f["path"], "error": type(e).__name__ + ": " + str(e)[:200]}
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()


main()
