# Runs pylint over copies of the files named on the command line, for debatebot's Pylint tool.
#
# pylint puts the directories of the files it lints at the front of sys.path, reads the
# configuration files it finds next to them, and loads the plugins a configuration names; a tree
# under review could use any of these to run its own code. So the files are copied, under
# neutral names (m0.py, m1.py, ...), into a fresh directory that holds nothing else; pylint runs
# there with an empty configuration of ours and the options given before "--", and never sees the
# tree. The interpreter runs isolated (-I): no PYTHON* variables, no user site, no current
# directory on sys.path. The first argument bounds the size of a file analysed: a larger one is
# left out as a problem. Prints {"results": [...], "problems": [...]}, the results as pylint's
# JSON reporter writes them with each path set back to the file's own.
import io
import json
import os
import shutil
import sys
import tempfile


def main(argv):
    max_bytes = int(argv[0])
    split = argv.index("--")
    options, files = argv[1:split], argv[split + 1:]
    tmp = tempfile.mkdtemp(prefix="debatebot-pylint-")
    try:
        names = {}
        problems = []
        for i, f in enumerate(files):
            if os.path.getsize(f) > max_bytes:
                problems.append({"path": f, "reason": "larger than %d KiB, left out (pylint would take too long)" % (max_bytes // 1024)})
                continue
            name = "m%d.py" % i
            shutil.copyfile(f, os.path.join(tmp, name))
            names[name] = f
        rc = os.path.join(tmp, "pylintrc")
        with open(rc, "w", encoding="utf-8"):
            pass
        os.chdir(tmp)
        from pylint.lint import Run
        from pylint.reporters import JSONReporter

        results = []
        if names:
            out = io.StringIO()
            Run(["--rcfile=" + rc] + options + sorted(names), reporter=JSONReporter(out), exit=False)
            results = json.loads(out.getvalue() or "[]")
        for r in results:
            r["path"] = names.get(os.path.basename(r.get("path") or ""), "")
        json.dump({"results": results, "problems": problems}, sys.stdout)
    finally:
        os.chdir("/")
        shutil.rmtree(tmp, ignore_errors=True)


main(sys.argv[1:])
