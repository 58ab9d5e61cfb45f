"""Prints, for each Python file given on stdin, the form in which debatebot's comparison of base
and head sees its functions (review/evidence/removed_ir.go): statements in source order with their
conditions, calls, names and literals. Input: a JSON list of {"path", "source"}; output: one
JSON line per file (see main). It uses only the standard library's ast module (Python 3.9 or later)."""

import ast
import json
import signal
import sys

GUARD_SIZE = 6  # the most statements a guard's branch holds (guardSize in removed_golang.go)
MAX_PATTERN = 4096  # the longest pattern (and folded string constant) read, in characters
REGEX_CALLS = {"compile", "match", "search", "fullmatch", "findall", "finditer", "sub", "subn", "split"}


def unparse(node):
    try:
        return " ".join(ast.unparse(node).split())
    except Exception:  # noqa: BLE001 - a node the unparser does not know is left without text
        return ""


def dotted(node):
    """The dotted name of an attribute chain and its root, or None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.insert(0, node.id)
        if len(parts) == 1:
            return [node.id]
        return [".".join(parts), parts[0]]
    return None


def target_names(node):
    if isinstance(node, (ast.Tuple, ast.List)):
        out = []
        for e in node.elts:
            out += target_names(e)
        return out
    if isinstance(node, ast.Starred):
        return target_names(node.value)
    if isinstance(node, ast.Subscript):
        return target_names(node.value)
    d = dotted(node)
    return d or []


def exits(body):
    """Whether a branch ends by leaving and is short enough to be a guard, and whether it refuses."""
    if not body or len(body) > GUARD_SIZE:
        return False, False
    for s in body:
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While, ast.Try)):
            return False, False
    last = body[-1]
    if isinstance(last, ast.Raise):
        return True, True
    if isinstance(last, ast.Return):
        v = last.value
        refuses = isinstance(v, ast.Constant) and v.value in (None, False)
        return True, refuses
    if isinstance(last, ast.Continue):
        return True, False
    return False, False


def is_docstring(s):
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)


def split_cond(test):
    text = unparse(test)
    if isinstance(test, ast.BoolOp):
        op = "and" if isinstance(test.op, ast.And) else "or"
        terms = []

        def flat(x):
            if isinstance(x, ast.BoolOp) and type(x.op) is type(test.op):
                for v in x.values:
                    flat(v)
            else:
                terms.append(unparse(x))

        flat(test)
        return {"op": op, "terms": terms, "text": text}
    return {"op": "", "terms": [text], "text": text}


class Func:
    def __init__(self, name, node, is_async):
        self.out = {
            "name": name,
            "line": node.lineno,
            "end": node.end_lineno,
            "async": is_async,
            "params": [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs],
            "nodes": [],
        }

    def add(self, n, stmt, parent, branch, head_end=None):
        n.setdefault("calls", [])
        n.setdefault("defs", [])
        n.setdefault("uses", [])
        n.setdefault("strs", [])
        n.setdefault("fields", [])
        n["line"] = stmt.lineno
        n["end"] = stmt.end_lineno
        n["head_end"] = head_end or stmt.end_lineno
        n["parent"] = parent
        n["branch"] = branch
        n["callback"] = False
        self.out["nodes"].append(n)
        return len(self.out["nodes"]) - 1


def fold(node, consts, depth=0):
    """The string a pattern expression evaluates to when it is built only from literals and
    names of the module's string constants (joined with +, or passed through a one-argument
    call such as a bytes conversion), else None."""
    if depth > 50:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
        v = node.value
        return v.decode("latin-1") if isinstance(v, bytes) else v
    if isinstance(node, ast.Name):
        return consts.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = fold(node.left, consts, depth + 1), fold(node.right, consts, depth + 1)
        return a + b if a is not None and b is not None else None
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        return fold(node.args[0], consts, depth + 1)
    if isinstance(node, ast.Call) and not node.args and isinstance(node.func, ast.Attribute) and node.func.attr == "encode":
        return fold(node.func.value, consts, depth + 1)
    return None


def regex_pattern(x, consts):
    """The pattern of a call of the re module that compiles or matches with one, or None."""
    callee = unparse(x.func)
    if callee.split(".")[0] in ("re", "regex") and callee.split(".")[-1] in REGEX_CALLS and x.args:
        pattern = fold(x.args[0], consts)
        if pattern is not None and len(pattern) <= MAX_PATTERN:
            return pattern
    return None


def module_constants(tree):
    """The module's names bound once at its top level to a string the pattern folding can read."""
    consts, seen = {}, {}
    for s in tree.body:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            name = s.targets[0].id
            seen[name] = seen.get(name, 0) + 1
            v = fold(s.value, consts)
            if v is not None and len(v) <= MAX_PATTERN:
                consts[name] = v
    return {k: v for k, v in consts.items() if seen[k] == 1}


def facts(n, expr, outer=-1):
    """Records the calls, names, literals and keyword fields of expr in node n."""
    if expr is None:
        return
    n.setdefault("calls", [])
    n.setdefault("uses", [])
    n.setdefault("strs", [])
    n.setdefault("fields", [])
    n.setdefault("defs", [])

    def walk(x, outer):
        if isinstance(x, ast.Call):
            callee = unparse(x.func)
            args = [unparse(a) for a in x.args] + [
                (kw.arg + "=" if kw.arg else "**") + unparse(kw.value) for kw in x.keywords
            ]
            n["calls"].append({"callee": callee, "line": x.lineno, "args": args, "text": unparse(x), "outer": outer})
            pattern = regex_pattern(x, CONSTS)
            if pattern is not None:
                n.setdefault("regexps", []).append(pattern)
            idx = len(n["calls"]) - 1
            for kw in x.keywords:
                if kw.arg:
                    n["fields"].append({"type": callee, "key": kw.arg, "value": unparse(kw.value)[:200], "line": kw.value.lineno, "rejects": False})
            if isinstance(x.func, ast.Attribute):
                d = dotted(x.func.value)
                if d:
                    n["uses"].extend(d)
                else:
                    walk(x.func.value, outer)
            elif not isinstance(x.func, ast.Name):
                walk(x.func, outer)
            for a in x.args:
                walk(a, idx)
            for kw in x.keywords:
                walk(kw.value, idx)
            return
        if isinstance(x, ast.Attribute):
            d = dotted(x)
            if d:
                n["uses"].extend(d)
                return
        if isinstance(x, ast.Name):
            n["uses"].append(x.id)
            return
        if isinstance(x, ast.Constant):
            if isinstance(x.value, str):
                n["strs"].append(x.value)
            elif isinstance(x.value, bytes):
                n["strs"].append(x.value.decode("latin-1"))
            return
        if isinstance(x, ast.NamedExpr):
            n["defs"].extend(target_names(x.target))
        for child in ast.iter_child_nodes(x):
            walk(child, outer)

    walk(expr, outer)


def outside_functions(node):
    """The nodes under node, not entering functions, lambdas or classes."""
    stack = [node]
    while stack:
        x = stack.pop()
        yield x
        for c in ast.iter_child_nodes(x):
            if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                stack.append(c)


CONSTS = {}  # the module constants of the file being walked (module_constants)


class Walker:
    def __init__(self, path):
        self.file = {"path": path, "imports": {}, "funcs": []}
        self.prefix = ""

    def module(self, tree):
        CONSTS.clear()
        CONSTS.update(module_constants(tree))
        self.top_regexps(tree.body, "")
        for s in tree.body:
            self.top(s, "")
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.file["imports"][a.asname] = a.name
                    else:
                        root = a.name.split(".")[0]
                        self.file["imports"][root] = root
            elif isinstance(node, ast.ImportFrom):
                # from .utils import f is ".utils.f"; from . import utils is ".utils"
                base = "." * node.level + (node.module or "")
                if base and not base.endswith("."):
                    base += "."
                for a in node.names:
                    self.file["imports"][a.asname or a.name] = base + a.name

    def top_regexps(self, body, prefix):
        """Records the patterns compiled at the top level of the module and of its classes, each
        under the name it is bound to (a module's compiled patterns are mostly constants)."""
        for s in body:
            if isinstance(s, ast.ClassDef):
                self.top_regexps(s.body, (prefix + "." if prefix else "") + s.name)
                continue
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            name = ""
            if isinstance(s, ast.Assign) and len(s.targets) == 1:
                name = unparse(s.targets[0])
            for x in outside_functions(s):
                if isinstance(x, ast.Call):
                    pattern = regex_pattern(x, CONSTS)
                    if pattern is not None:
                        qual = (prefix + "." if prefix else "") + name
                        self.file.setdefault("regexps", []).append({"name": qual, "line": x.lineno, "pattern": pattern})

    def top(self, s, prefix):
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(s, prefix)
        elif isinstance(s, ast.ClassDef):
            name = prefix + "." + s.name if prefix else s.name
            for b in s.body:
                self.top(b, name)
        elif isinstance(s, ast.If):
            for b in s.body + s.orelse:
                self.top(b, prefix)

    def function(self, fd, prefix):
        name = prefix + "." + fd.name if prefix else fd.name
        f = Func(name, fd, isinstance(fd, ast.AsyncFunctionDef))
        saved = self.prefix
        self.prefix = name
        self.block(f, fd.body, -1, "")
        self.prefix = saved
        self.file["funcs"].append(f.out)

    def block(self, f, body, parent, branch):
        for k, s in enumerate(body):
            if k == 0 and parent == -1 and is_docstring(s):
                continue  # a docstring is no statement (its ".. note::" is no path)
            self.stmt(f, s, parent, branch)

    def stmt(self, f, s, parent, branch):
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(s, self.prefix)
            return
        if isinstance(s, ast.ClassDef):
            for b in s.body:
                self.top(b, self.prefix + "." + s.name)
            return
        if isinstance(s, ast.If):
            n = {"kind": "if", "text": "if " + unparse(s.test), "cond": split_cond(s.test), "has_else": bool(s.orelse)}
            n["exits"], n["rejects"] = exits(s.body)
            facts(n, s.test)
            i = f.add(n, s, parent, branch, s.test.end_lineno)
            self.block(f, s.body, i, "then")
            self.block(f, s.orelse, i, "else")
            return
        if isinstance(s, (ast.For, ast.AsyncFor)):
            n = {"kind": "loop", "text": "for " + unparse(s.target) + " in " + unparse(s.iter), "defs": target_names(s.target)}
            facts(n, s.iter)
            i = f.add(n, s, parent, branch, s.iter.end_lineno)
            self.block(f, s.body, i, "body")
            self.block(f, s.orelse, i, "else")
            return
        if isinstance(s, ast.While):
            n = {"kind": "loop", "text": "while " + unparse(s.test), "cond": split_cond(s.test)}
            facts(n, s.test)
            i = f.add(n, s, parent, branch, s.test.end_lineno)
            self.block(f, s.body, i, "body")
            self.block(f, s.orelse, i, "else")
            return
        if isinstance(s, (ast.With, ast.AsyncWith)):
            n = {"kind": "with", "text": "with " + ", ".join(unparse(it) for it in s.items)}
            for it in s.items:
                facts(n, it.context_expr)
                if it.optional_vars is not None:
                    n.setdefault("defs", []).extend(target_names(it.optional_vars))
            i = f.add(n, s, parent, branch, s.items[-1].context_expr.end_lineno)
            self.block(f, s.body, i, "body")
            return
        if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            n = {"kind": "try", "text": "try"}
            i = f.add(n, s, parent, branch, s.lineno)
            self.block(f, s.body, i, "try")
            for h in s.handlers:
                self.block(f, h.body, i, "catch")
            self.block(f, s.orelse, i, "else")
            self.block(f, s.finalbody, i, "finally")
            return
        if isinstance(s, ast.Return):
            n = {"kind": "return", "text": "return " + unparse(s.value) if s.value else "return"}
            facts(n, s.value)
            f.add(n, s, parent, branch)
            return
        if isinstance(s, ast.Raise):
            n = {"kind": "raise", "text": unparse(s)}
            facts(n, s.exc)
            f.add(n, s, parent, branch)
            return
        if isinstance(s, (ast.Continue, ast.Break)):
            f.add({"kind": "exit", "text": unparse(s)}, s, parent, branch)
            return
        if isinstance(s, ast.Assert):
            n = {"kind": "assert", "text": unparse(s), "cond": split_cond(s.test), "exits": True, "rejects": True}
            facts(n, s.test)
            f.add(n, s, parent, branch)
            return
        if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            n = {"kind": "assign", "text": unparse(s), "defs": []}
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            for t in targets:
                n["defs"].extend(target_names(t))
                if not isinstance(t, ast.Name):
                    facts(n, t)
            facts(n, s.value)
            f.add(n, s, parent, branch)
            return
        if isinstance(s, ast.Expr):
            n = {"kind": "expr", "text": unparse(s.value)}
            facts(n, s.value)
            f.add(n, s, parent, branch)
            return
        if isinstance(s, ast.Pass):
            return
        n = {"kind": "other", "text": unparse(s)[:200]}
        f.add(n, s, parent, branch)


class FileTimeout(Exception):
    """Raised by the per-file alarm: the file took longer than its time limit."""


def on_alarm(signum, frame):
    raise FileTimeout("parsing took longer than the time limit")


def limit(memory_bytes):
    """Caps the address space, so that a file that makes the parser allocate without bound
    raises MemoryError for that file instead of taking the machine's memory."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY and hard < memory_bytes:
            memory_bytes = hard
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, hard))
    except (ImportError, ValueError, OSError):
        pass  # no resource module (not Unix) or a limit already lower: the Go side still bounds time


def describe(e):
    if isinstance(e, MemoryError):
        return "MemoryError: the parser ran out of memory (nested too deeply or too large)"
    text = str(e)
    return ("%s: %s" % (type(e).__name__, text) if text else type(e).__name__)[:300]


def parse_one(item, seconds):
    w = Walker(item["path"])
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        tree = ast.parse(item["source"], filename=item["path"])
        w.module(tree)
    except (SyntaxError, ValueError) as e:
        w = Walker(item["path"])
        w.file["error"] = describe(e)
    except Exception as e:  # noqa: BLE001 - MemoryError, RecursionError, a timeout: one bad file costs only itself
        w = Walker(item["path"])
        w.file["skip"] = describe(e)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return w.file


def main():
    """Arguments: the address-space limit in bytes and the time limit per file in seconds.
    Output: a line {"ready": true}, then one line per file, in the input's order, flushed as each
    file is done, so that the Go side keeps what was done if the process dies."""
    if sys.version_info < (3, 9):
        sys.exit("python %d.%d has no ast.unparse (3.9 or later is needed)" % sys.version_info[:2])
    memory = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 30
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
    limit(memory)
    signal.signal(signal.SIGALRM, on_alarm)
    files = json.load(sys.stdin)
    sys.stdout.write('{"ready": true}\n')
    sys.stdout.flush()
    for item in files:
        out = parse_one(item, seconds)
        try:
            line = json.dumps(out)
        except Exception as e:  # noqa: BLE001 - e.g. RecursionError on a form too deep to encode
            line = json.dumps({"path": item["path"], "imports": {}, "funcs": [], "skip": describe(e)})
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
