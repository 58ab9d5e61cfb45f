package compare

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// removedFindings runs the comparison over a change and returns its findings as
// "rule@path:line", sorted.
func removedFindings(t testing.TB, c *change.Change) ([]string, []string) {
	t.Helper()
	return analyzerFindings(t, RemovedAnalyzer{}, c)
}

// analyzerFindings gathers a's evidence on c and returns its findings as "rule@path:line",
// sorted, and the gathering's notes.
func analyzerFindings(t testing.TB, a scan.Analyzer, c *change.Change) ([]string, []string) {
	t.Helper()
	ev, notes, err := scan.GatherWithNotes(context.Background(), c, []scan.Analyzer{a})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ev {
		out = append(out, fmt.Sprintf("%s@%s:%d", e.Rule, e.Path, e.Line))
		t.Logf("%s %s %s:%d %s", e.Rule, e.Severity, e.Path, e.Line, e.Message)
	}
	sort.Strings(out)
	return out, notes
}

type removedCase struct {
	name  string
	files [][3]string
	// want are the findings as rule@path:line; none for a benign change.
	want []string
	// severity of the first finding, when it matters.
	severity voting.Severity
}

func runRemovedCases(t *testing.T, cases []removedCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, f := range tc.files {
				if change.LanguageOf(f[0]) == "python" {
					if _, err := exec.LookPath("python3"); err != nil {
						t.Skip("python3 is not installed: the Python front end needs it (.ci/run installs it)")
					}
				}
			}
			c := changetest.Versions(t, tc.files...)
			got, notes := removedFindings(t, c)
			for _, n := range notes {
				t.Logf("note: %s", n)
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
			if tc.severity != "" && len(got) > 0 {
				ev, _, _ := scan.GatherWithNotes(context.Background(), c, []scan.Analyzer{RemovedAnalyzer{}})
				if ev[0].Severity != tc.severity {
					t.Errorf("severity %s, want %s", ev[0].Severity, tc.severity)
				}
			}
		})
	}
}

// A guard (an early exit, an assertion) removed with nothing equivalent left is reported at
// the first head statement that uses what it tested; the same guard moved into a function
// head now calls, or into the caller, is not.
func TestRemovedGuards(t *testing.T) {
	pyBase := `import os


def read(root, name):
    if ".." in name.split("/"):
        raise ValueError("parent segment in " + name)
    path = os.path.join(root, name)
    with open(path) as f:
        return f.read()
`
	pyHead := `import os


def read(root, name):
    path = os.path.join(root, name)
    with open(path) as f:
        return f.read()
`
	pyMoved := `import os


def check_name(name):
    if ".." in name.split("/"):
        raise ValueError("parent segment in " + name)


def read(root, name):
    check_name(name)
    path = os.path.join(root, name)
    with open(path) as f:
        return f.read()
`
	pyCallerBase := `import os


def read(root, name):
    if ".." in name.split("/"):
        raise ValueError("parent segment in " + name)
    return open(os.path.join(root, name)).read()


def handler(root, request):
    return read(root, request.args["name"])
`
	pyCallerHead := `import os


def read(root, name):
    return open(os.path.join(root, name)).read()


def handler(root, request):
    name = request.args["name"]
    if ".." in name.split("/"):
        raise ValueError("parent segment in " + name)
    return read(root, name)
`
	goBase := `package app

import "net/http"

func (c *Ctx) form() {
	req := c.Request
	if req != nil {
		req.ParseForm()
		c.cache = req.PostForm
	}
}
`
	goHead := `package app

import "net/http"

func (c *Ctx) form() {
	req := c.Request
	req.ParseForm()
	c.cache = req.PostForm
}
`
	goEarly := `package app

import "net/http"

func (c *Ctx) form() {
	req := c.Request
	if req == nil {
		return
	}
	req.ParseForm()
	c.cache = req.PostForm
}
`
	jsBase := `function location(res, url) {
  var loc = url;
  var parsed = parse(loc);
  if (parsed.host !== expected(loc).host) {
    return res.set('Location', '/');
  }
  return res.set('Location', loc);
}
`
	jsHead := `function location(res, url) {
  var loc = url;
  return res.set('Location', loc);
}
`
	runRemovedCases(t, []removedCase{
		{name: "python early exit removed before open", files: [][3]string{{"app/files.py", pyBase, pyHead}},
			want: []string{"protection-removed@app/files.py:5"}, severity: "high"},
		{name: "python guard moved into a helper it now calls", files: [][3]string{{"app/files.py", pyBase, pyMoved}}},
		{name: "python guard moved to the caller", files: [][3]string{{"app/files.py", pyCallerBase, pyCallerHead}}},
		{name: "go nil guard around calls removed", files: [][3]string{{"app/ctx.go", goBase, goHead}},
			want: []string{"check-removed@app/ctx.go:7"}, severity: "medium"},
		{name: "go nil guard turned into an early return", files: [][3]string{{"app/ctx.go", goBase, goEarly}}},
		{name: "javascript host check removed before a redirect", files: [][3]string{{"lib/res.js", jsBase, jsHead}},
			want: []string{"protection-removed@lib/res.js:3"}, severity: "high"},
	})
}

// A sanitiser unwrapped in place (clean(x) → x) or removed with its statement is reported where
// head uses the value; one replaced by a related call, or called by a function head now calls,
// is not.
func TestRemovedSanitisers(t *testing.T) {
	goBase := `package store

import (
	"os"
	"path/filepath"
)

func Load(root, name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(root, sanitizeName(name)))
}

func sanitizeName(n string) string { return filepath.Base(n) }
`
	goHead := `package store

import (
	"os"
	"path/filepath"
)

func Load(root, name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(root, name))
}

func sanitizeName(n string) string { return filepath.Base(n) }
`
	goRelated := `package store

import (
	"os"
	"path/filepath"
)

func Load(root, name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(root, safeName(name)))
}

func safeName(n string) string { return sanitizeName(n) }

func sanitizeName(n string) string { return filepath.Base(n) }
`
	jsBase := `const db = require('./db');

function find(user) {
  const name = db.escape(user.name);
  return db.query("SELECT * FROM users WHERE name = '" + name + "'");
}
`
	jsHead := `const db = require('./db');

function find(user) {
  const name = user.name;
  return db.query("SELECT * FROM users WHERE name = '" + name + "'");
}
`
	jsRenamed := `const db = require('./db');

function find(user) {
  const name = db.escapeString(user.name);
  return db.query("SELECT * FROM users WHERE name = '" + name + "'");
}
`
	pyBase := `import os


def path_of(root, sub):
    sub = os.path.normpath(sub)
    sub = sanitize(sub)
    return os.path.join(root, sub)
`
	pyHead := `import os


def path_of(root, sub):
    sub = os.path.normpath(sub)
    return os.path.join(root, sub)
`
	runRemovedCases(t, []removedCase{
		{name: "go sanitiser unwrapped", files: [][3]string{{"store/load.go", goBase, goHead}},
			want: []string{"protection-removed@store/load.go:9"}, severity: "high"},
		{name: "go sanitiser now called through a helper", files: [][3]string{{"store/load.go", goBase, goRelated}}},
		{name: "javascript escape removed before a query", files: [][3]string{{"lib/users.js", jsBase, jsHead}},
			want: []string{"protection-removed@lib/users.js:4"}, severity: "high"},
		{name: "javascript escape replaced by a related escaper", files: [][3]string{{"lib/users.js", jsBase, jsRenamed}}},
		{name: "python sanitiser statement removed", files: [][3]string{{"app/paths.py", pyBase, pyHead}},
			want: []string{"protection-removed@app/paths.py:6"}, severity: "high"},
	})
}

// A condition that lost a disjunct of a refusal, a conjunct of an action, or the separator of a
// prefix check is weakened; one that lost a conjunct of a refusal is stricter, not weaker.
func TestRemovedConditions(t *testing.T) {
	jsBase := `const path = require('path');

function allowed(entry, field) {
  if (field === 'path' || entry.type === 'Link') {
    throw new Error('.. in ' + field);
  }
  return path.join(entry.cwd, entry[field]);
}
`
	jsHead := strings.Replace(jsBase, "field === 'path' || entry.type === 'Link'", "field === 'path'", 1)
	jsStricter := strings.Replace(strings.Replace(jsBase, "||", "&&", 1), "field === 'path' && entry.type === 'Link'", "field === 'path'", 1)
	jsStricterBase := strings.Replace(jsBase, "||", "&&", 1)
	pyBase := `def rebuild(headers, scheme, user, password):
    if not scheme.startswith("https") and user and password:
        headers["Proxy-Authorization"] = user + ":" + password
    return headers
`
	pyHead := `def rebuild(headers, scheme, user, password):
    if user and password:
        headers["Proxy-Authorization"] = user + ":" + password
    return headers
`
	goBase := `package files

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

func Open(root, name string) (*os.File, error) {
	p := filepath.Join(root, name)
	if !strings.HasPrefix(p, root+string(os.PathSeparator)) {
		return nil, errors.New("outside root")
	}
	return os.Open(p)
}
`
	goHead := strings.Replace(goBase, "root+string(os.PathSeparator))", "root)", 1)
	goOther := strings.Replace(goBase, `errors.New("outside root")`, `errors.New("outside the root")`, 1)
	runRemovedCases(t, []removedCase{
		{name: "javascript refusal lost a disjunct", files: [][3]string{{"lib/unpack.js", jsBase, jsHead}},
			want: []string{"condition-weakened@lib/unpack.js:4"}, severity: "high"},
		{name: "javascript refusal lost a conjunct (stricter)", files: [][3]string{{"lib/unpack.js", jsStricterBase, jsStricter}}},
		{name: "python action lost a conjunct", files: [][3]string{{"lib/proxy.py", pyBase, pyHead}},
			want: []string{"condition-weakened@lib/proxy.py:2"}, severity: "high"},
		{name: "go prefix check lost its separator", files: [][3]string{{"files/open.go", goBase, goHead}},
			want: []string{"condition-weakened@files/open.go:12"}, severity: "high"},
		{name: "go prefix check kept, message edited", files: [][3]string{{"files/open.go", goBase, goOther}}},
	})
}

// A term dropped from a condition is no loss when a term kept implies it: a path that is a
// regular file exists. Dropping the stronger test is still a loss.
func TestRemovedConditionsImpliedTerms(t *testing.T) {
	base := `import os


def serve(root, name):
    path = os.path.join(root, name)
    if not os.path.exists(path) or not os.path.isfile(path):
        raise LookupError(name)
    return open(path, "rb")


def listing(folder):
    if os.path.exists(folder) and folder.is_dir():
        return os.listdir(folder)
    return []
`
	dropExists := strings.Replace(base, "not os.path.exists(path) or not os.path.isfile(path)", "not os.path.isfile(path)", 1)
	dropIsFile := strings.Replace(base, "not os.path.exists(path) or not os.path.isfile(path)", "not os.path.exists(path)", 1)
	dropExistsAnd := strings.Replace(base, "os.path.exists(folder) and folder.is_dir()", "folder.is_dir()", 1)
	otherBase := strings.Replace(base, "not os.path.exists(path) or", "not os.path.exists(root) or", 1)
	otherPath := strings.Replace(otherBase, "not os.path.exists(root) or not os.path.isfile(path)", "not os.path.isfile(path)", 1)
	runRemovedCases(t, []removedCase{
		{name: "exists dropped beside isfile", files: [][3]string{{"app/files.py", base, dropExists}}},
		{name: "exists dropped beside is_dir", files: [][3]string{{"app/files.py", base, dropExistsAnd}}},
		{name: "isfile dropped beside exists", files: [][3]string{{"app/files.py", base, dropIsFile}},
			want: []string{"condition-weakened@app/files.py:6"}, severity: "high"},
		{name: "exists of another path dropped", files: [][3]string{{"app/files.py", otherBase, otherPath}},
			want: []string{"condition-weakened@app/files.py:6"}, severity: "high"},
	})
}

// A call of a helper of the change that releases its argument is a release: removing it from a
// path where the resource is still held is reported there, and a helper of head that still
// releases it, or a with block, makes the removal no loss.
func TestRemovedReleasesThroughHelpers(t *testing.T) {
	base := `def _close_quietly(obj):
    try:
        if hasattr(obj, "close"):
            obj.close()
    except Exception:
        pass


class Responder:
    def body(self, request):
        out = self.render(request)
        try:
            first = next(iter(out))
        except StopIteration:
            _close_quietly(out)
            return b""
        except ValueError:
            _close_quietly(out)
            raise
        return first
`
	dropped := strings.ReplaceAll(base, "            _close_quietly(out)\n", "")
	renamed := strings.ReplaceAll(strings.Replace(base, "def _close_quietly(obj):", "def _discard(obj):", 1), "_close_quietly(out)", "_discard(out)")
	withBlock := strings.Replace(dropped, `        out = self.render(request)
        try:
            first = next(iter(out))
        except StopIteration:
            return b""
        except ValueError:
            raise
        return first`, `        with contextlib.closing(self.render(request)) as out:
            return next(iter(out), b"")`, 1)
	if withBlock == dropped {
		t.Fatal("the with-block variant is the same as the dropped one")
	}
	runRemovedCases(t, []removedCase{
		{name: "release through a helper dropped", files: [][3]string{{"app/respond.py", base, dropped}},
			want: []string{"release-removed@app/respond.py:15", "release-removed@app/respond.py:17"}},
		{name: "helper renamed, still called", files: [][3]string{{"app/respond.py", base, renamed}}},
		{name: "helper calls replaced by a with block", files: [][3]string{{"app/respond.py", base, withBlock}}},
	})
}

// A release removed while head still acquires the resource is reported at the acquisition (or,
// for a release on one path, where that path starts); one replaced by a with block or handed to
// a function that releases it is not.
func TestRemovedReleases(t *testing.T) {
	goBase := `package client

import "net/http"

func fetch(url string) (int, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, nil
}
`
	goHead := strings.Replace(goBase, "\tdefer resp.Body.Close()\n", "", 1)
	goHanded := `package client

import "net/http"

func fetch(url string) (int, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err
	}
	defer drain(resp)
	return resp.StatusCode, nil
}

func drain(r *http.Response) { r.Body.Close() }
`
	pyBase := `def head_line(path):
    f = open(path)
    line = f.readline()
    f.close()
    return line
`
	pyHead := `def head_line(path):
    f = open(path)
    line = f.readline()
    return line
`
	pyWith := `def head_line(path):
    with open(path) as f:
        line = f.readline()
    return line
`
	jsBase := `const fs = require('fs');

function first(path) {
  const fd = fs.openSync(path, 'r');
  const buf = Buffer.alloc(1);
  fs.readSync(fd, buf);
  fs.closeSync(fd);
  return buf;
}
`
	jsHead := strings.Replace(jsBase, "  fs.closeSync(fd);\n", "", 1)
	runRemovedCases(t, []removedCase{
		{name: "go deferred Close removed", files: [][3]string{{"client/fetch.go", goBase, goHead}},
			want: []string{"release-removed@client/fetch.go:6"}, severity: "medium"},
		{name: "go Close handed to a helper", files: [][3]string{{"client/fetch.go", goBase, goHanded}}},
		{name: "python close removed", files: [][3]string{{"app/read.py", pyBase, pyHead}},
			want: []string{"release-removed@app/read.py:2"}},
		{name: "python close replaced by with", files: [][3]string{{"app/read.py", pyBase, pyWith}}},
		{name: "javascript closeSync removed", files: [][3]string{{"lib/first.js", jsBase, jsHead}},
			want: []string{"release-removed@lib/first.js:4"}},
	})
}

// A context, timeout or deadline no longer passed is reported where the call is; one added is
// not.
func TestRemovedContexts(t *testing.T) {
	goBase := `package load

import (
	"context"
	"net/http"
)

func Load(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return nil, err
	}
	return http.DefaultClient.Do(req)
}
`
	goHead := strings.Replace(goBase, `http.NewRequestWithContext(ctx, "GET", url, nil)`, `http.NewRequest("GET", url, nil)`, 1)
	pyBase := `import requests


def fetch(url):
    return requests.get(url, timeout=10).json()
`
	pyHead := strings.Replace(pyBase, "requests.get(url, timeout=10)", "requests.get(url)", 1)
	goClientBase := `package hook

import (
	"errors"
	"net/http"
	"time"
)

func deliver(url string) error {
	client := &http.Client{
		Timeout: 5 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errors.New("no redirects")
		},
	}
	_, err := client.Post(url, "application/json", nil)
	return err
}
`
	goNoRedirectCheck := strings.Replace(goClientBase, "\t\tCheckRedirect: func(*http.Request, []*http.Request) error {\n\t\t\treturn errors.New(\"no redirects\")\n\t\t},\n", "", 1)
	goNoTimeout := strings.Replace(goClientBase, "\t\tTimeout: 5 * time.Second,\n", "", 1)
	goLongerTimeout := strings.Replace(goClientBase, "5 * time.Second", "30 * time.Second", 1)
	runRemovedCases(t, []removedCase{
		{name: "go request without its context", files: [][3]string{{"load/load.go", goBase, goHead}},
			want: []string{"context-dropped@load/load.go:9"}},
		{name: "go request given a context", files: [][3]string{{"load/load.go", goHead, goBase}}},
		{name: "python timeout no longer passed", files: [][3]string{{"app/fetch.py", pyBase, pyHead}},
			want: []string{"context-dropped@app/fetch.py:5"}},
		{name: "go CheckRedirect removed from the client", files: [][3]string{{"hook/deliver.go", goClientBase, goNoRedirectCheck}},
			want: []string{"protection-removed@hook/deliver.go:10"}, severity: "high"},
		{name: "go Timeout removed from the client", files: [][3]string{{"hook/deliver.go", goClientBase, goNoTimeout}},
			want: []string{"context-dropped@hook/deliver.go:10"}},
		{name: "go Timeout changed", files: [][3]string{{"hook/deliver.go", goClientBase, goLongerTimeout}}},
	})
}

// An end-of-options "--" dropped from a command's arguments, a try/catch removed around a call
// in a callback, and a blocking call moved onto the event loop are reported; the same edits
// where they change nothing are not.
func TestRemovedMisc(t *testing.T) {
	jsBase := `const { spawn } = require('child_process');

function clone(url, dir) {
  return spawn('git', ['clone', '--', url, dir]);
}
`
	jsHead := strings.Replace(jsBase, "'--', ", "", 1)
	jsOther := strings.Replace(jsBase, "['clone', '--', url, dir]", "['clone', '--depth=1', '--', url, dir]", 1)
	jsTryBase := `const fs = require('fs');

function write(path, data, cb) {
  fs.writeFile(path, data, function (err) {
    try {
      fs.utimesSync(path, 0, 0);
    } catch (e) {
      return cb(e);
    }
    cb(err);
  });
}

function touch(path) {
  try {
    fs.utimesSync(path, 0, 0);
  } catch (e) {
    return false;
  }
  return true;
}
`
	jsTryHead := `const fs = require('fs');

function write(path, data, cb) {
  fs.writeFile(path, data, function (err) {
    fs.utimesSync(path, 0, 0);
    cb(err);
  });
}

function touch(path) {
  try {
    fs.utimesSync(path, 0, 0);
  } catch (e) {
    return false;
  }
  return true;
}
`
	jsTrySync := `const fs = require('fs');

function write(path, data, cb) {
  fs.writeFile(path, data, function (err) {
    try {
      fs.utimesSync(path, 0, 0);
    } catch (e) {
      return cb(e);
    }
    cb(err);
  });
}

function touch(path) {
  fs.utimesSync(path, 0, 0);
  return true;
}
`
	pyBase := `import asyncio


class Handler:
    async def get(self, name):
        model = await asyncio.to_thread(load_model, name)
        self.finish(model)

    def get_sync(self, name):
        model = asyncio.run(asyncio.to_thread(load_model, name))
        self.finish(model)
`
	pyHead := strings.Replace(pyBase, "model = await asyncio.to_thread(load_model, name)", "model = load_model(name)", 1)
	pySync := strings.Replace(pyBase, "model = asyncio.run(asyncio.to_thread(load_model, name))", "model = load_model(name)", 1)
	runRemovedCases(t, []removedCase{
		{name: "javascript -- dropped from spawn's arguments", files: [][3]string{{"lib/git.js", jsBase, jsHead}},
			want: []string{"protection-removed@lib/git.js:4"}, severity: "high"},
		{name: "javascript another option added before --", files: [][3]string{{"lib/git.js", jsBase, jsOther}}},
		{name: "javascript try/catch removed in a callback", files: [][3]string{{"lib/write.js", jsTryBase, jsTryHead}},
			want: []string{"error-handling-removed@lib/write.js:5"}},
		{name: "javascript try/catch removed in a plain function", files: [][3]string{{"lib/write.js", jsTryBase, jsTrySync}}},
		{name: "python to_thread removed in an async handler", files: [][3]string{{"app/handlers.py", pyBase, pyHead}},
			want: []string{"offload-removed@app/handlers.py:6"}},
		{name: "python to_thread removed in a plain function", files: [][3]string{{"app/handlers.py", pyBase, pySync}}},
	})
}

// A function inlined into its caller without one of its bounds is reported; inlined with the
// bound kept, it is not.
func TestRemovedInlined(t *testing.T) {
	base := `class Decoder:
    def next_event(self):
        data, end = self._parse(self.buffer)
        del self.buffer[:end]
        return data

    def _parse(self, buf):
        end = self.last_newline(buf)
        if len(buf) - end > self.max_pending:
            end = len(buf)
        return bytes(buf[:end]), end
`
	head := `class Decoder:
    def next_event(self):
        end = self.last_newline(self.buffer)
        data = bytes(self.buffer[:end])
        del self.buffer[:end]
        return data
`
	kept := `class Decoder:
    def next_event(self):
        end = self.last_newline(self.buffer)
        if len(self.buffer) - end > self.max_pending:
            end = len(self.buffer)
        data = bytes(self.buffer[:end])
        del self.buffer[:end]
        return data
`
	runRemovedCases(t, []removedCase{
		{name: "python bound lost in inlining", files: [][3]string{{"lib/decode.py", base, head}},
			want: []string{"check-removed@lib/decode.py:3"}},
		{name: "python bound kept in inlining", files: [][3]string{{"lib/decode.py", base, kept}}},
	})
}

// The base rebuilt from head and hunks is the base; line mapping follows the hunks.
func TestBaseTextAndLineMap(t *testing.T) {
	base := "a\nb\nc\nd\ne\n"
	head := "a\nc\nX\nd\ne\nf\n"
	c := changetest.Versions(t, [3]string{"x.go", base, head})
	f := c.Files[0]
	got, ok := baseText(f)
	if !ok || string(got) != base {
		t.Fatalf("baseText = %q, %v", got, ok)
	}
	m := lineMap{f}
	for old, want := range map[int]int{1: 1, 2: 2, 3: 2, 4: 4, 5: 5} {
		if got := m.head(old); got != want {
			t.Errorf("head(%d) = %d, want %d", old, got, want)
		}
	}
}

// withTrees gives a change base and head trees holding its files and the unchanged files
// others (path → content, the same on both sides).
func withTrees(t *testing.T, c *change.Change, files [][3]string, others map[string]string) {
	t.Helper()
	root := t.TempDir()
	base, head := filepath.Join(root, "base"), filepath.Join(root, "head")
	for p, content := range others {
		changetest.Write(t, filepath.Join(base, p), content)
		changetest.Write(t, filepath.Join(head, p), content)
	}
	for _, f := range files {
		if f[1] != "" {
			changetest.Write(t, filepath.Join(base, f[0]), f[1])
		}
		if f[2] != "" {
			changetest.Write(t, filepath.Join(head, f[0]), f[2])
		}
	}
	c.Trees = func(context.Context) (string, string, func(), error) { return base, head, func() {}, nil }
}

// With the change's trees, the comparison reads the unchanged files a call points at: a guard
// that moved into a helper of another package is not removed, and a sink reached through an
// unchanged module makes a removed guard high.
func TestRemovedReadsTrees(t *testing.T) {
	goBase := `package files

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

func Open(root, name string) (*os.File, error) {
	if strings.Contains(name, "..") {
		return nil, errors.New("parent segment")
	}
	return os.Open(filepath.Join(root, name))
}
`
	goHead := `package files

import (
	"os"
	"path/filepath"

	"example.com/app/pathcheck"
)

func Open(root, name string) (*os.File, error) {
	return os.Open(filepath.Join(root, pathcheck.Local(name)))
}
`
	helper := `package pathcheck

import (
	"path/filepath"
	"strings"
)

// Local keeps the last element of a name with a parent segment.
func Local(name string) string {
	if strings.Contains(name, "..") {
		return filepath.Base(name)
	}
	return name
}
`
	files := [][3]string{{"files/open.go", goBase, goHead}}
	c := changetest.Versions(t, files...)
	if got, _ := removedFindings(t, c); len(got) != 1 {
		t.Fatalf("without trees the helper is unknown: findings %v, want the guard reported", got)
	}
	c = changetest.Versions(t, files...)
	withTrees(t, c, files, map[string]string{"go.mod": "module example.com/app\n\ngo 1.22\n", "pathcheck/pathcheck.go": helper})
	if got, _ := removedFindings(t, c); len(got) != 0 {
		t.Errorf("with trees the guard is found in pathcheck.Local: findings %v, want none", got)
	}

	jsBase := `var Utils = require('./util');

function extract(target, name) {
  if (name.indexOf('..') !== -1) {
    throw new Error('bad entry ' + name);
  }
  Utils.makeDir(target + '/' + name);
}
`
	jsHead := `var Utils = require('./util');

function extract(target, name) {
  Utils.makeDir(target + '/' + name);
}
`
	util := `var fs = require('fs');

exports.makeDir = function (p) {
  fs.mkdirSync(p, { recursive: true });
};
`
	files = [][3]string{{"lib/extract.js", jsBase, jsHead}}
	c = changetest.Versions(t, files...)
	withTrees(t, c, files, map[string]string{"lib/util.js": util})
	ev, _, err := scan.GatherWithNotes(context.Background(), c, []scan.Analyzer{RemovedAnalyzer{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != 1 || ev[0].Rule != rules.RuleProtectionRemoved || ev[0].Line != 4 || !strings.Contains(ev[0].Message, "lib/util.js:4") {
		t.Errorf("findings %+v, want protection-removed at lib/extract.js:4 reaching fs.mkdirSync in lib/util.js", ev)
	}
}

// Rewrites that keep a protection are not reported: a check rewritten in place, a search loop
// replaced by a library call with the same literal, a filter on a loop's elements whose source
// changed, a dropped term tested by a statement the change adds, a permission (not a
// restriction) removed, a context passed to the variant that takes it, a check moved into a
// function the change edited, a strengthened condition; and a check on a value whose computation
// the change removed is reported only when it protected a sink.
func TestRemovedBenignRewrites(t *testing.T) {
	pyRewritten := [2]string{`def tag(etag=None, data=None):
    if [etag, data].count(None) != 1:
        raise TypeError("either etag or data")
    if etag is None:
        etag = make(data)
    return etag
`, `def tag(etag=None, data=None):
    if etag is None:
        if data is None:
            raise TypeError("data is required without etag")
        etag = make(data)
    return etag
`}
	goSearch := [2]string{`package paths

import "strings"

func containsDotDot(v string) bool {
	for _, ent := range strings.Split(v, "/") {
		if ent == ".." {
			return true
		}
	}
	return false
}
`, `package paths

import (
	"slices"
	"strings"
)

func containsDotDot(v string) bool {
	return slices.Contains(strings.Split(v, "/"), "..")
}
`}
	pyFilter := [2]string{`def options(rest):
    out = {}
    for pk, pv in PATTERN.findall(rest):
        if not pk:
            continue
        out[pk.lower()] = pv
    return out
`, `def options(rest):
    out = {}
    for pk, pv in split_parts(rest):
        out[pk.lower()] = pv
    return out
`}
	pySplit := [2]string{`def process(accept, length, env):
    if not accept or length is None or length == 0:
        return False
    return serve(env)
`, `def process(accept, length, env):
    if not accept:
        return False
    mark(env)
    if not length:
        return False
    return serve(env)
`}
	pyMovedIntoBody := [2]string{`def strip_port(scheme, host):
    if scheme in {"http", "ws"} and host.endswith(":80"):
        host = host[:-3]
    return host
`, `def strip_port(scheme, host):
    if scheme in {"http", "ws"}:
        host = host.removesuffix(":80")
    return host
`}
	jsPermission := [2]string{`const qs = require('qs');

function parse(str) {
  return qs.parse(str, { allowPrototypes: true, depth: 5 });
}
`, `const qs = require('qs');

function parse(str) {
  return qs.parse(str, { depth: 5 });
}
`}
	jsAllowList := [2]string{`const cors = require('cors');

function setup(app) {
  app.use(cors({ allowedOrigins: ['https://example.com'], credentials: true }));
}
`, `const cors = require('cors');

function setup(app) {
  app.use(cors({ credentials: true }));
}
`}
	goCtxVariant := [2]string{`package s3

import "context"

func get(ctx context.Context, c *Client, in *Input) error {
	_, err := c.GetObjectWithContext(ctx, in)
	return err
}
`, `package s3

import "context"

func get(ctx context.Context, c *Client, in *Input) error {
	_, err := c.GetObject(ctx, in)
	return err
}
`}
	pyMovedIntoCallee := [2]string{`class App:
    def __call__(self, request):
        assert request.host
        if request.args.get("cmd") == "pin":
            return self.pin_auth(request)
        return self.serve(request)

    def pin_auth(self, request):
        return self.check(request)
`, `class App:
    def __call__(self, request):
        if request.args.get("cmd") == "pin":
            return self.pin_auth(request)
        return self.serve(request)

    def pin_auth(self, request):
        if not self.check_host_trust(request.environ):
            return None
        return self.check(request)
`}
	pyStrengthened := [2]string{`def get_host(host_header, server):
    host = ""
    if host_header is not None:
        host = host_header
    elif server is not None:
        host = server[0]
        if server[1] is not None:
            host = f"{host}:{server[1]}"
    return host
`, `def get_host(host_header, server):
    if host_header is not None:
        host = host_header
    elif server is not None and server[1] is not None:
        host = server[0]
        host = f"{host}:{server[1]}"
    else:
        host = ""
    return host
`}
	goDerivedNoSink := [2]string{`package opts

func pick(args []string) []string {
	var out []string
	for _, a := range args {
		k := index(a, "--")
		if k < 0 {
			continue
		}
		out = append(out, a)
	}
	return out
}
`, `package opts

func pick(args []string) []string {
	var out []string
	for _, a := range args {
		if !has(a, "--") {
			continue
		}
		out = append(out, a)
	}
	return out
}
`}
	goNilDependency := [2]string{`package run

func (r *Runner) decision(id int64) error {
	if r.Store == nil {
		return nil
	}
	return r.Store.Record(id)
}

func (s *Store) Record(id int64) error {
	_, err := s.db.Exec("UPDATE debates SET seen = 1 WHERE id = ?", id)
	return err
}
`, `package run

func (r *Runner) decision(id int64) error {
	return r.Store.Record(id)
}

func (s *Store) Record(id int64) error {
	_, err := s.db.Exec("UPDATE debates SET seen = 1 WHERE id = ?", id)
	return err
}
`}
	goLiteral := [2]string{`package paths

import "strings"

func bad(name string) bool {
	if strings.Contains(name, "..") {
		return true
	}
	return strings.HasPrefix(name, "/")
}
`, `package paths

import "strings"

func bad(name string) bool {
	return strings.Contains(name, "..") || strings.HasPrefix(name, "/")
}
`}
	goDerived := [2]string{`package opts

func pick(args []string) []string {
	var out []string
	for _, a := range args {
		k := strings.Index(a, "=")
		if k < 0 {
			continue
		}
		out = append(out, a)
	}
	return out
}
`, `package opts

func pick(args []string) []string {
	var out []string
	for _, a := range args {
		out = append(out, a)
	}
	return out
}
`}
	jsVerdict := [2]string{`function trusted(host, list) {
  if (list.indexOf(host) !== -1) {
    return true;
  }
  return host.endsWith('.internal');
}
`, `function trusted(host, list) {
  return host.endsWith('.internal');
}
`}
	runRemovedCases(t, []removedCase{
		{name: "javascript predicate lost a positive branch", files: [][3]string{{"lib/trust.js", jsVerdict[0], jsVerdict[1]}}},
		{name: "go early return folded into the returned expression", files: [][3]string{{"paths/bad.go", goLiteral[0], goLiteral[1]}}},
		{name: "go check removed with the computation it tested", files: [][3]string{{"opts/pick.go", goDerived[0], goDerived[1]}}},
		{name: "python check rewritten in place", files: [][3]string{{"app/etag.py", pyRewritten[0], pyRewritten[1]}}},
		{name: "go search loop replaced by slices.Contains", files: [][3]string{{"paths/dots.go", goSearch[0], goSearch[1]}}},
		{name: "python filter on a loop whose source changed", files: [][3]string{{"app/options.py", pyFilter[0], pyFilter[1]}}},
		{name: "python terms split into a new check", files: [][3]string{{"app/ranges.py", pySplit[0], pySplit[1]}}},
		{name: "python term moved into the body", files: [][3]string{{"app/host.py", pyMovedIntoBody[0], pyMovedIntoBody[1]}}},
		{name: "javascript permission removed", files: [][3]string{{"lib/query.js", jsPermission[0], jsPermission[1]}}},
		{name: "javascript allow list removed", files: [][3]string{{"lib/cors.js", jsAllowList[0], jsAllowList[1]}},
			want: []string{"check-removed@lib/cors.js:4"}},
		{name: "go context passed to the variant that takes it", files: [][3]string{{"s3/get.go", goCtxVariant[0], goCtxVariant[1]}}},
		{name: "python assertion moved into the callee it protects", files: [][3]string{{"app/debug.py", pyMovedIntoCallee[0], pyMovedIntoCallee[1]}}},
		{name: "python elif strengthened", files: [][3]string{{"app/host.py", pyStrengthened[0], pyStrengthened[1]}}},
		{name: "go check on a computation the change removed, no sink", files: [][3]string{{"opts/pick.go", goDerivedNoSink[0], goDerivedNoSink[1]}}},
		{name: "go nil check on a dependency", files: [][3]string{{"run/decision.go", goNilDependency[0], goNilDependency[1]}},
			want: []string{"check-removed@run/decision.go:4"}, severity: "medium"},
	})
}

// A JavaScript switch with an empty case (goja's AST panics on its end) and Go and JavaScript
// that do not parse are notes, never a crash of the gathering.
func TestRemovedFrontEndsDegrade(t *testing.T) {
	js := `function kind(x) {
  switch (x) {
    case 1:
    case 2:
      return 'small';
    default:
      return 'large';
  }
}
`
	if ir := jsIR("a.js", []byte(js)); ir.Err != "" || len(ir.Funcs) != 1 {
		t.Errorf("switch with an empty case: err %q, %d functions", ir.Err, len(ir.Funcs))
	}
	c := changetest.Versions(t, [3]string{"a.go", "package a\n\nfunc f() {}\n", "package a\n\nfunc f( {}\n"}, [3]string{"b.ts", "let x: number = 1;\n", "let x: number = 2;\n"},
		[3]string{"c.js", "function f() {}\n", "function f( {}\n"})
	_, notes := removedFindings(t, c)
	joined := strings.Join(notes, "\n")
	if !strings.Contains(joined, "could not parse a.go") || !strings.Contains(joined, "c.js") {
		t.Errorf("notes %q do not say which files did not parse", joined)
	}
}

// A read base made under a lock and head makes outside it (moved before the Lock, out of the
// with block, or a locking accessor replaced by the field) is reported; a read that stays under
// the lock is not.
func TestRemovedLocks(t *testing.T) {
	goBase := `package ctx

func (c *Context) Copy() *Context {
	cp := Context{}
	c.mu.RLock()
	cp.Keys = clone(c.Keys)
	c.mu.RUnlock()
	return &cp
}
`
	goHead := `package ctx

func (c *Context) Copy() *Context {
	cp := Context{}
	keys := c.Keys
	c.mu.RLock()
	cp.Keys = clone(keys)
	c.mu.RUnlock()
	return &cp
}
`
	goStill := `package ctx

func (c *Context) Copy() *Context {
	cp := Context{}
	c.mu.RLock()
	keys := c.Keys
	cp.Keys = clone(keys)
	c.mu.RUnlock()
	return &cp
}
`
	pyBase := `class Pool:
    def snapshot(self):
        with self._lock:
            items = list(self._items)
        return items
`
	pyHead := `class Pool:
    def snapshot(self):
        items = list(self._items)
        with self._lock:
            pass
        return items
`
	goAccessorBase := `package scrape

func (sp *pool) Dropped() int {
	sp.mtx.Lock()
	defer sp.mtx.Unlock()
	return sp.dropped
}

func (sp *pool) DroppedLocked() int { return sp.Dropped() }

func (m *Manager) Counts() map[string]int {
	out := map[string]int{}
	for k, sp := range m.pools {
		out[k] = sp.Dropped()
	}
	return out
}
`
	goAccessorHead := strings.Replace(goAccessorBase, "out[k] = sp.Dropped()", "out[k] = sp.dropped", 1)
	goAccessorOther := strings.Replace(goAccessorBase, "out[k] = sp.Dropped()", "out[k] = sp.DroppedLocked()", 1)
	runRemovedCases(t, []removedCase{
		{name: "go read moved before the lock", files: [][3]string{{"ctx/copy.go", goBase, goHead}},
			want: []string{"lock-removed@ctx/copy.go:5"}, severity: "medium"},
		{name: "go read still under the lock", files: [][3]string{{"ctx/copy.go", goBase, goStill}}},
		{name: "python read moved out of the with block", files: [][3]string{{"app/pool.py", pyBase, pyHead}},
			want: []string{"lock-removed@app/pool.py:3"}},
		{name: "go locking accessor replaced by the field", files: [][3]string{{"scrape/pool.go", goAccessorBase, goAccessorHead}},
			want: []string{"lock-removed@scrape/pool.go:14"}},
		{name: "go locking accessor replaced by another accessor", files: [][3]string{{"scrape/pool.go", goAccessorBase, goAccessorOther}}},
	})
}

// A function the change takes every lock out of, while it still reads fields base read under
// one, is reported once at its first such read (over several lines: at the line of the read);
// not when the lock moved to the callers (a Locked helper), gave way to atomic accesses or to
// another lock. An embedded mutex (h.RLock()) guards the reads of h's fields.
func TestRemovedLocksDropped(t *testing.T) {
	base := `package stats

func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

func Snapshot(q *Queue) Stats {
	q.mu.Lock()
	n := len(q.items)
	q.mu.Unlock()
	return Stats{
		Name:  q.name,
		Count: n,
	}
}
`
	dropped := `package stats

func (s *Server) Running() bool {
	return s.running
}

func Snapshot(q *Queue) Stats {
	return Stats{
		Name:  q.name,
		Count: len(q.items),
	}
}
`
	atomics := `package stats

func (s *Server) Running() bool {
	return s.running.Load()
}

func Snapshot(q *Queue) Stats {
	return Stats{
		Name:  q.name,
		Count: int(atomic.LoadInt64(&q.items)),
	}
}
`
	other := `package stats

func (s *Server) Running() bool {
	s.stateMu.RLock()
	defer s.stateMu.RUnlock()
	return s.running
}

func Snapshot(q *Queue) Stats {
	q.mu.Lock()
	n := len(q.items)
	q.mu.Unlock()
	return Stats{
		Name:  q.name,
		Count: n,
	}
}
`
	lockedBase := "package stats\n\nfunc (s *Server) runningLocked() bool {\n\ts.mu.Lock()\n\tdefer s.mu.Unlock()\n\treturn s.running\n}\n"
	lockedHead := "package stats\n\nfunc (s *Server) runningLocked() bool {\n\treturn s.running\n}\n"
	embBase := `package hosts

func (h *Hosts) reload() {
	h.RLock()
	size := h.size
	mtime := h.mtime
	h.RUnlock()
	if mtime.Equal(h.stat()) && size == 0 {
		return
	}
}
`
	embHead := `package hosts

func (h *Hosts) reload() {
	h.RLock()
	size := h.size
	h.RUnlock()
	if h.mtime.Equal(h.stat()) && size == 0 {
		return
	}
}
`
	runRemovedCases(t, []removedCase{
		{name: "go locks dropped from the functions", files: [][3]string{{"stats/stats.go", base, dropped}},
			want: []string{"lock-removed@stats/stats.go:10", "lock-removed@stats/stats.go:4"}, severity: "medium"},
		{name: "go locks replaced by atomics", files: [][3]string{{"stats/stats.go", base, atomics}}},
		{name: "go lock replaced by another", files: [][3]string{{"stats/stats.go", base, other}}},
		{name: "go lock moved to the callers", files: [][3]string{{"stats/stats.go", lockedBase, lockedHead}}},
		{name: "go read moved out of an embedded lock", files: [][3]string{{"hosts/hosts.go", embBase, embHead}},
			want: []string{"lock-removed@hosts/hosts.go:7"}},
	})
}

// A costly call base made once that head makes on every iteration of a loop, with inputs the
// loop does not change, is reported; one that now takes the loop's item, or a cheap one, is not.
func TestRemovedWorkIntoLoop(t *testing.T) {
	base := `import json


def load_config(path):
    with open(path) as f:
        return json.load(f)


def render(items, path):
    cfg = load_config(path)
    out = []
    for item in items:
        out.append(cfg["prefix"] + item)
    return out
`
	head := `import json


def load_config(path):
    with open(path) as f:
        return json.load(f)


def render(items, path):
    out = []
    for item in items:
        cfg = load_config(path)
        out.append(cfg["prefix"] + item)
    return out
`
	perItem := strings.Replace(head, "cfg = load_config(path)", "cfg = load_config(item)", 1)
	goBase := `package out

func render(items []string, sep string) []string {
	n := len(sep)
	var out []string
	for _, it := range items {
		out = append(out, it[:n])
	}
	return out
}
`
	goCheap := `package out

func render(items []string, sep string) []string {
	var out []string
	for _, it := range items {
		n := len(sep)
		out = append(out, it[:n])
	}
	return out
}
`
	goPathBase := `package unzip

import "os"

func extract(dst string, names []string, dir bool) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, n := range names {
		touch(dst, n)
	}
	return nil
}
`
	goPathHead := `package unzip

import "os"

func extract(dst string, names []string, dir bool) error {
	for _, n := range names {
		path := dst
		if dir {
			path = path + "/" + n
		}
		if err := os.MkdirAll(path, 0o755); err != nil {
			return err
		}
		touch(dst, n)
	}
	return nil
}
`
	runRemovedCases(t, []removedCase{
		{name: "go call now on a path the item changes", files: [][3]string{{"unzip/extract.go", goPathBase, goPathHead}}},
		{name: "python file read moved into the loop", files: [][3]string{{"app/render.py", base, head}},
			want: []string{"work-moved-into-loop@app/render.py:12"}, severity: "medium"},
		{name: "python call now per item", files: [][3]string{{"app/render.py", base, perItem}}},
		{name: "go cheap call moved into the loop", files: [][3]string{{"out/render.go", goBase, goCheap}}},
	})
}

// A repetition of overlapping alternatives or a repetition nested in another over the same
// characters backtracks exponentially; unambiguous repetitions do not.
func TestCatastrophicRegexps(t *testing.T) {
	for pattern, want := range map[string]bool{
		`(.|\s)*`:                     true,
		`for key '?((.|\s)*?)'?\s.*$`: true,
		`(a|ab)*c`:                    true,
		`^(\w+\s?)*$`:                 true,
		`(a+)+b`:                      true,
		`^(\d+)*$`:                    true,
		`(?:x|x)+y`:                   true,
		`[^']*`:                       false,
		`(a|b)*`:                      false,
		`Duplicate entry '([\S\s]*)' for key '?([^']*?)'?\s.*$`: false,
		`(\d+\.)*\d+`:  false,
		`(?:ab)+`:      false,
		`a*b*`:         false,
		`\s*,\s*`:      false,
		`(foo|bar)+`:   false,
		`[(|)]*`:       false,
		`^(?!-)[a-z]+`: false,
		// A cycle through the rest of the iteration and back: every item on it can match the
		// inner repetition's characters (written with escapes and Python's {,n}), or one cannot.
		`^([\x21-\x7e]([ \t\x21-\x7e]+[\x21-\x7e]){,1}){0,}$`: true,
		`([a-z]([a-z ]+[a-z])?)*`:                             true,
		`^[\x21-\x7e]+(?:[ \t]+[\x21-\x7e]+)*$`:               false,
		`(?:,\s*\w+)*`:                                        false,
		`([a-z]([0-9]+[a-z])?)*`:                              false,
	} {
		if got := catastrophic(pattern) != ""; got != want {
			t.Errorf("catastrophic(%q) = %v (%s), want %v", pattern, got, catastrophic(pattern), want)
		}
	}
}

// A regular expression the change made catastrophic is reported in JavaScript and Python; a
// safe edit of one, and Go's (linear) regexps, are not.
func TestRemovedRegexps(t *testing.T) {
	jsBase := `function formatError(err) {
  const match = err.message.match(/Duplicate entry '([\S\s]*)' for key '?([^']*?)'?\s.*$/);
  return match ? match[2] : null;
}
`
	jsHead := strings.Replace(jsBase, `([^']*?)`, `((.|\s)*?)`, 1)
	jsSafe := strings.Replace(jsBase, `([^']*?)`, `([^'"]*?)`, 1)
	pyBase := `import re


def words(text):
    return re.findall(r"\w+", text)
`
	pyHead := strings.Replace(pyBase, `r"\w+"`, `r"(\w+\s?)*"`, 1)
	pyModBase := `import re

WORD = "[a-z]"
PHRASE = WORD + "+(?: +" + WORD + "+)*"
MATCHER = re.compile(("^" + PHRASE + "$").encode())
`
	pyModHead := strings.Replace(pyModBase, `"+(?: +" + WORD + "+)*"`, `"([ a-z]+" + WORD + "){,1}"`, 1)
	pyModHead = strings.Replace(pyModHead, `"^" + PHRASE + "$"`, `"^(" + PHRASE + ")*$"`, 1)
	pyModSafe := strings.Replace(pyModBase, `"+(?: +"`, `"+(?:, +"`, 1)
	goBase := "package w\n\nimport \"regexp\"\n\nvar re = regexp.MustCompile(`\\w+`)\n\nfunc words(s string) []string { return regexp.MustCompile(`\\w+`).FindAllString(s, -1) }\n"
	goHead := strings.Replace(goBase, "regexp.MustCompile(`\\w+`).Find", "regexp.MustCompile(`(\\w+\\s?)*`).Find", 1)
	runRemovedCases(t, []removedCase{
		{name: "javascript alternation of overlapping classes under a repetition", files: [][3]string{{"src/query.js", jsBase, jsHead}},
			want: []string{"regex-backtracking@src/query.js:2"}, severity: "medium"},
		{name: "javascript safe edit of the pattern", files: [][3]string{{"src/query.js", jsBase, jsSafe}}},
		{name: "python nested repetition", files: [][3]string{{"app/words.py", pyBase, pyHead}},
			want: []string{"regex-backtracking@app/words.py:5"}},
		{name: "python module pattern built from constants", files: [][3]string{{"app/phrase.py", pyModBase, pyModHead}},
			want: []string{"regex-backtracking@app/phrase.py:5"}},
		{name: "python module pattern safely edited", files: [][3]string{{"app/phrase.py", pyModBase, pyModSafe}}},
		{name: "go regexp is linear", files: [][3]string{{"w/words.go", goBase, goHead}}},
	})
}

// More rewrites that keep a protection, met in real histories: a docstring's ".. note::" does
// not make a function a sanitiser, a sanitiser moved into a function the caller already called
// (and the change edited), a check replaced by a transformation of the value in place, and a
// call inside a while loop that reads a new chunk each time.
func TestRemovedBenignRewritesFromHistories(t *testing.T) {
	pyDocstring := [2]string{`def set_digest(realm, qop):
    parameters = {"realm": realm, "qop": dump_header(qop)}
    return parameters


def dump_header(value):
    """Dump a header.

    .. versionchanged:: 2.3
        Quotes as needed.
    """
    return ", ".join(value)
`, `def set_digest(realm, qop):
    parameters = {"realm": realm, "qop": ", ".join(qop)}
    return parameters


def dump_header(value):
    """Dump a header.

    .. versionchanged:: 2.3
        Quotes as needed.
    """
    return ", ".join(value)
`}
	pyIntoCallee := [2]string{`def make_conditional(self, environ, accept_ranges):
    accept_ranges = _clean_accept_ranges(accept_ranges)
    return self._process_range_request(environ, accept_ranges)


def _process_range_request(self, environ, accept_ranges):
    return open(environ["PATH"] + accept_ranges)
`, `def make_conditional(self, environ, accept_ranges):
    return self._process_range_request(environ, accept_ranges)


def _process_range_request(self, environ, accept_ranges):
    accept_ranges = _clean_accept_ranges(accept_ranges)
    return open(environ["PATH"] + accept_ranges)
`}
	jsTransformed := [2]string{`res.location = function location(url) {
  var loc = url;
  var encoded = encodeUrl(loc);
  var parsed = urlParse(loc);
  if (parsed.host !== urlParse(encoded).host) {
    return this.set('Location', loc);
  }
  return this.set('Location', encoded);
};
`, `res.location = function location(url) {
  var loc = url;
  var m = schemaAndHost.exec(loc);
  var pos = m ? m[0].length + 1 : 0;
  loc = loc.slice(0, pos) + encodeUrl(loc.slice(pos));
  return this.set('Location', loc);
};
`}
	pyWhile := [2]string{`def write_out(data):
    with open("out.bin", "ab") as f:
        f.write(data)


def encode(reader, encoder):
    data = b""
    while True:
        chunk = reader(16384)
        if not chunk:
            break
        data += encoder.send(chunk)
    write_out(data)
`, `def write_out(data):
    with open("out.bin", "ab") as f:
        f.write(data)


def encode(reader, encoder):
    while True:
        chunk = reader(16384)
        if not chunk:
            break
        write_out(encoder.send(chunk))
`}
	runRemovedCases(t, []removedCase{
		{name: "python helper whose docstring has ..", files: [][3]string{{"app/auth.py", pyDocstring[0], pyDocstring[1]}}},
		{name: "python sanitiser moved into the callee", files: [][3]string{{"app/response.py", pyIntoCallee[0], pyIntoCallee[1]}}},
		{name: "javascript check replaced by an in-place transformation", files: [][3]string{{"lib/response.js", jsTransformed[0], jsTransformed[1]}}},
		{name: "python write per chunk read in a while loop", files: [][3]string{{"app/encode.py", pyWhile[0], pyWhile[1]}}},
	})
}

// An edited call that base already made inside the loop is not moved into it; a context the
// change takes out of a function's signature (and so out of every call) is an API change, not a
// dropped context.
func TestRemovedBenignAPIChanges(t *testing.T) {
	goLoopBase := `package unzip

import "os"

func extract(dst string, names []string, dir bool) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, n := range names {
		path := dst
		if dir {
			path = path + "/" + n
		}
		if err := os.MkdirAll(path, 0o755); err != nil {
			return err
		}
		if err := os.MkdirAll(dst+"/tmp", 0o755); err != nil {
			return err
		}
	}
	return nil
}
`
	goLoopHead := strings.ReplaceAll(goLoopBase, "0o755)", "mode(0o755))")
	goAPIBase := `package getter

import "context"

type HTTP struct{}

func (g *HTTP) Get(ctx context.Context, dst string) error { return fetch(ctx, dst) }

func (c *Client) get(g *HTTP, dst string) error {
	return g.Get(c.ctx, dst)
}
`
	goAPIHead := `package getter

import "context"

type HTTP struct{ ctx context.Context }

func (g *HTTP) Get(dst string) error { return fetch(g.ctx, dst) }

func (c *Client) get(g *HTTP, dst string) error {
	return g.Get(dst)
}
`
	runRemovedCases(t, []removedCase{
		{name: "go edited call that was already in the loop", files: [][3]string{{"unzip/extract.go", goLoopBase, goLoopHead}}},
		{name: "go context moved out of the signature", files: [][3]string{{"getter/get.go", goAPIBase, goAPIHead}}},
	})
}

// A tidying function (clean_*) removed is graded by where the value goes; one whose checks the
// change moved into the function the value is passed to is not removed.
func TestRemovedTidyingFunctions(t *testing.T) {
	base := `def _clean_ranges(ranges):
    if ranges is True:
        return "bytes"
    elif ranges is False:
        return "none"
    raise ValueError("invalid ranges")


class Response:
    def make_conditional(self, environ, ranges):
        ranges = _clean_ranges(ranges)
        return self._process(environ, ranges)

    def _process(self, environ, ranges):
        self.headers["Accept-Ranges"] = ranges
        return True
`
	removed := strings.Replace(base, "        ranges = _clean_ranges(ranges)\n", "", 1)
	moved := `class Response:
    def make_conditional(self, environ, ranges):
        return self._process(environ, ranges)

    def _process(self, environ, ranges):
        if ranges is True:
            ranges = "bytes"
        elif ranges is False:
            ranges = "none"
        self.headers["Accept-Ranges"] = ranges
        return True
`
	runRemovedCases(t, []removedCase{
		{name: "python tidying call removed, the value reaches no sink", files: [][3]string{{"app/response.py", base, removed}},
			want: []string{"check-removed@app/response.py:14"}, severity: "medium"},
		{name: "python tidying function deleted, its checks moved into the callee", files: [][3]string{{"app/response.py", base, moved}}},
	})
}

// The comparison visits the paired statements of a function in base order, not in the order of
// a map: two findings of one rule at one line (two requests on one line that both lost their
// context) join their parts the same way on every run.
func TestRemovedOutputStable(t *testing.T) {
	base := `package load

import (
	"context"
	"net/http"
)

func Load(ctx context.Context, a, b string) error {
	ra, err := http.NewRequestWithContext(ctx, "GET", a, nil); rb, err := http.NewRequestWithContext(ctx, "GET", b, nil)
	if err != nil {
		return err
	}
	if _, err := http.DefaultClient.Do(ra); err != nil {
		return err
	}
	_, err = http.DefaultClient.Do(rb)
	return err
}
`
	head := strings.ReplaceAll(base, `http.NewRequestWithContext(ctx, "GET", `, `http.NewRequest("GET", `)
	run := func() string {
		ev, notes, err := scan.GatherWithNotes(context.Background(), changetest.Versions(t, [3]string{"load/load.go", base, head}), []scan.Analyzer{RemovedAnalyzer{}})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range ev {
			out = append(out, fmt.Sprintf("%s %s %s:%d %s", e.Rule, e.Severity, e.Path, e.Line, e.Message))
		}
		return strings.Join(append(out, notes...), "\n")
	}
	first := run()
	t.Log(first)
	if !strings.Contains(first, "context-dropped") || !strings.Contains(first, " and ") {
		t.Fatalf("want one context-dropped finding of two parts, got:\n%s", first)
	}
	for range 20 {
		if got := run(); got != first {
			t.Fatalf("output changed between runs:\n%s\nthen:\n%s", first, got)
		}
	}
}

// A guard removed before a call of a function of the same file is reported at that call when
// the function goes on using the guarded value after it (the work the guard saved is done there),
// and inside the callee when the call only hands the value on.
func TestRemovedGuardFollowsOnlyAHandOver(t *testing.T) {
	base := `def validate(name):
    for ch in name:
        if not ch.isalnum():
            raise ValueError(ch)


def encode(name):
    if len(name) > 63:
        raise ValueError("too long")
    validate(name)
    return "xn--" + name.encode("punycode").decode()
`
	head := strings.Replace(base, "    if len(name) > 63:\n        raise ValueError(\"too long\")\n", "", 1)
	handOver := strings.Replace(head, "    return \"xn--\" + name.encode(\"punycode\").decode()\n", "    return None\n", 1)
	handOverBase := strings.Replace(base, "    return \"xn--\" + name.encode(\"punycode\").decode()\n", "    return None\n", 1)
	runRemovedCases(t, []removedCase{
		{name: "the function still uses the value after the call", files: [][3]string{{"lib/label.py", base, head}},
			want: []string{"check-removed@lib/label.py:8"}},
		{name: "the call hands the value on", files: [][3]string{{"lib/label.py", handOverBase, handOver}},
			want: []string{"check-removed@lib/label.py:2"}},
	})
}
