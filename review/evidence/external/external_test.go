package external

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// The external tools' tests need the tools; .ci/run installs them (Debian's bandit, shellcheck and
// cppcheck, and npm ci in tools/eslint).
func needProgram(t testing.TB, name, install string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed: install it (%s) to run this", name, install)
	}
}

// eslintForTest is the repository's tools/eslint (or $DEBATEBOT_ESLINT_DIR), skipping the test
// when ESLint is not set up there.
func eslintForTest(t testing.TB) ESLint {
	t.Helper()
	needProgram(t, "node", "apt-get install nodejs")
	dir := os.Getenv("DEBATEBOT_ESLINT_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "tools", "eslint")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "eslint", "bin", "eslint.js")); err != nil {
		t.Skipf("ESLint is not set up in %s: run 'npm ci --prefix tools/eslint' to run this", dir)
	}
	return ESLint{Dir: dir}
}

// externalCase is one tool over one file of testdata/external (a real defect added in head, the
// same defect already in the base on a line that moved) and of testdata/external-benign.
type externalCase struct {
	tool   func(t testing.TB) Tool
	file   string
	want   []string // "rule func line severity" of every new finding
	benign string
}

var externalCases = map[string]externalCase{
	"bandit": {
		tool: func(t testing.TB) Tool { needProgram(t, "bandit", "apt-get install bandit"); return Bandit{} },
		file: "app/run.py",
		want: []string{
			"bandit:B506 load_config 17 high",      // yaml.load
			"bandit:B602 Archiver.archive 22 high", // shell=True with a built command
		},
		benign: "app/cache.py",
	},
	"pyflakes": {
		tool: func(t testing.TB) Tool {
			needProgram(t, "pyflakes3", "apt-get install pyflakes3")
			return Pyflakes{}
		},
		file: "app/tasks.py",
		want: []string{
			"pyflakes:undefined-name total_delay 22 medium", // a misspelt name returned
		},
		benign: "app/jobs.py",
	},
	"pylint": {
		tool: func(t testing.TB) Tool { needProgram(t, "pylint", "apt-get install pylint"); return Pylint{} },
		file: "app/tasks.py",
		want: []string{
			"pylint:useless-with-lock count 14 medium",        // a lock made for the with guards nothing
			"pylint:undefined-variable total_delay 22 medium", // a misspelt name returned
			"pylint:cell-var-from-loop announce 27 medium",    // every callback sends the last job
		},
		benign: "app/jobs.py",
	},
	"eslint": {
		tool: func(t testing.TB) Tool { return eslintForTest(t) },
		file: "web/server.js",
		want: []string{
			"eslint:security/detect-child-process thumbnail 9 high",
		},
		benign: "web/format.js",
	},
	"eslint-typescript": {
		tool: func(t testing.TB) Tool { return eslintForTest(t) },
		file: "web/limits.ts",
		want: []string{
			"eslint:no-dupe-keys merged 11 medium",
		},
		benign: "web/types.ts",
	},
	"eslint-promises": {
		tool: func(t testing.TB) Tool { return eslintForTest(t) },
		file: "web/jobs.js",
		want: []string{
			"eslint:@typescript-eslint/no-floating-promises record 10 medium", // typed through the TypeScript program
		},
		benign: "web/queue.js",
	},
	"shellcheck": {
		tool: func(t testing.TB) Tool {
			needProgram(t, "shellcheck", "apt-get install shellcheck")
			return ShellCheck{}
		},
		file: "scripts/deploy.sh",
		want: []string{
			"shellcheck:SC2115 publish 12 high", // rm -rf "$TARGET/" with TARGET possibly empty
		},
		benign: "scripts/build.sh",
	},
	"cppcheck": {
		tool: func(t testing.TB) Tool {
			needProgram(t, "cppcheck", "apt-get install cppcheck")
			return Cppcheck{}
		},
		file: "native/buf.c",
		want: []string{
			"cppcheck:bufferAccessOutOfBounds copy_name 16 high",
		},
		benign: "native/sum.c",
	},
}

func describe(fs []scan.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s %d %s", f.Rule, f.Func, f.Line, f.Severity))
	}
	slices.Sort(out)
	return out
}

func runCase(t *testing.T, tool Tool, tree, file string) ToolResult {
	t.Helper()
	res, err := Run(context.Background(), Options{
		BaseDir: filepath.Join("testdata", tree, "base"), HeadDir: filepath.Join("testdata", tree, "head"),
		Files: []ChangedFile{{Path: file}}, Tools: []Tool{tool},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(res) != 1 {
		t.Fatalf("%d results, want 1: %+v", len(res), res)
	}
	r := res[0]
	if r.Missing != "" || r.Failed != "" {
		t.Fatalf("%s did not run: missing %q, failed %q", r.Tool, r.Missing, r.Failed)
	}
	return r
}

// Each tool finds the defect the change adds, keyed by its scope, and leaves out the same defect
// the base already had on a line the change moved.
func TestExternalToolsReportNewDefectsOnly(t *testing.T) {
	for name, c := range externalCases {
		t.Run(name, func(t *testing.T) {
			tool := c.tool(t)
			r := runCase(t, tool, "external", c.file)
			got := describe(r.New)
			want := slices.Clone(c.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("new findings:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
			if r.Preexisting == 0 {
				t.Errorf("no pre-existing finding: the base's defect (on a line the change moved) was not matched")
			}
			for _, f := range r.New {
				if f.Path != c.file || f.Source != tool.Name() || f.Message == "" || f.Topic == "" {
					t.Errorf("finding %+v: want path %s, source %s, a message and a topic", f, c.file, tool.Name())
				}
			}
			if r.Files != 1 || len(r.Problems) != 0 {
				t.Errorf("files %d, problems %q", r.Files, r.Problems)
			}
		})
	}
}

// A benign change in each language may draw remarks, but none that decides: nothing above low.
func TestExternalToolsBenignChange(t *testing.T) {
	for name, c := range externalCases {
		t.Run(name, func(t *testing.T) {
			r := runCase(t, c.tool(t), "external-benign", c.benign)
			for _, f := range r.New {
				if f.Severity.Rank() > voting.SeverityLow.Rank() {
					t.Errorf("benign change: %s %s:%d is %s: %s", f.Rule, f.Path, f.Line, f.Severity, f.Message)
				}
			}
		})
	}
}

// The noisy rules the benign change trips are reported at low: md5 for an ETag (capped although
// bandit rates it medium and is confident), random for a jitter. Bandit's audits of every use
// (import subprocess, a subprocess call with an argument list) are not run at all.
func TestBanditSeverityPolicy(t *testing.T) {
	needProgram(t, "bandit", "apt-get install bandit")
	r := runCase(t, Bandit{}, "external-benign", "app/cache.py")
	got := describe(r.New)
	want := []string{"bandit:B303 etag 12 low", "bandit:B311 jitter 16 low"}
	if !slices.Equal(got, want) {
		t.Errorf("new findings %q, want %q", got, want)
	}
}

// Without a base tree every head finding is new (the caller keeps those on added lines).
func TestExternalWithoutBase(t *testing.T) {
	needProgram(t, "shellcheck", "apt-get install shellcheck")
	res, err := Run(context.Background(), Options{HeadDir: "testdata/external/head",
		Files: []ChangedFile{{Path: "scripts/deploy.sh"}}, Tools: []Tool{ShellCheck{}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(res[0].New); !slices.Equal(got, []string{"shellcheck:SC2115 cleanup 8 high", "shellcheck:SC2115 publish 12 high"}) {
		t.Errorf("new = %q", got)
	}
}

// A renamed file's findings are compared under its new name: the defects it had are not new.
func TestExternalRenamedFile(t *testing.T) {
	needProgram(t, "shellcheck", "apt-get install shellcheck")
	base, head := t.TempDir(), t.TempDir()
	script := "#!/bin/sh\nclean() {\n  rm -rf \"$DIR/\"\n}\n"
	changetest.Write(t, filepath.Join(base, "old.sh"), script)
	changetest.Write(t, filepath.Join(head, "bin", "new.sh"), "#!/bin/sh\n# moved\n"+script[len("#!/bin/sh\n"):])
	res, err := Run(context.Background(), Options{BaseDir: base, HeadDir: head,
		Files: []ChangedFile{{Path: "bin/new.sh", OldPath: "old.sh"}}, Tools: []Tool{ShellCheck{}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res[0].New) != 0 || res[0].Preexisting == 0 {
		t.Errorf("renamed file: new %q, pre-existing %d", describe(res[0].New), res[0].Preexisting)
	}
}

// Files no tool handles, or that the change deleted, run nothing and say nothing.
func TestExternalSkipsOtherLanguages(t *testing.T) {
	dir := t.TempDir()
	changetest.Write(t, filepath.Join(dir, "main.go"), "package main\n")
	res, err := Run(context.Background(), Options{BaseDir: dir, HeadDir: dir,
		Files: []ChangedFile{{Path: "main.go"}, {Path: "gone.py"}}, Tools: DefaultTools()})
	if err != nil || len(res) != 0 {
		t.Errorf("results %+v, err %v", res, err)
	}
}

// A tool that is not installed is named, with why, and nothing fails.
func TestExternalToolMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	for _, f := range []string{"a.py", "a.js", "a.sh", "a.c"} {
		changetest.Write(t, filepath.Join(dir, f), "\n")
	}
	tools := []Tool{Bandit{}, Pyflakes{}, Pylint{}, ESLint{Dir: filepath.Join(dir, "no-eslint")}, ShellCheck{}, Cppcheck{}}
	res, err := Run(context.Background(), Options{BaseDir: dir, HeadDir: dir,
		Files: []ChangedFile{{Path: "a.py"}, {Path: "a.js"}, {Path: "a.sh"}, {Path: "a.c"}}, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"bandit": "no bandit on PATH", "pyflakes": "no pyflakes3 or pyflakes on PATH", "pylint": "no pylint on PATH", "eslint": "no node on PATH", "shellcheck": "no shellcheck on PATH", "cppcheck": "no cppcheck on PATH"}
	if len(res) != len(want) {
		t.Fatalf("results %+v", res)
	}
	for _, r := range res {
		if !strings.Contains(r.Missing, want[r.Tool]) || r.Failed != "" || len(r.New) != 0 {
			t.Errorf("%s: missing %q, failed %q, new %d; want missing %q", r.Tool, r.Missing, r.Failed, len(r.New), want[r.Tool])
		}
	}
}

// With node but no ESLint set up in its directory, ESLint is missing, and the note says where to
// set it up.
func TestESLintNotSetUp(t *testing.T) {
	needProgram(t, "node", "apt-get install nodejs")
	_, _, err := ESLint{Dir: t.TempDir()}.Command([]string{"./a.js"})
	if err == nil || !strings.Contains(err.Error(), "DEBATEBOT_ESLINT_DIR") || !strings.Contains(err.Error(), ErrNotInstalled.Error()) {
		t.Errorf("err = %v", err)
	}
}

// fakeTool puts an executable script named name first on PATH.
func fakeTool(t *testing.T, name, script string) {
	t.Helper()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func runFake(t *testing.T, tool Tool, file string, timeout time.Duration) ToolResult {
	t.Helper()
	dir := t.TempDir()
	changetest.Write(t, filepath.Join(dir, file), "x\n")
	res, err := Run(context.Background(), Options{BaseDir: dir, HeadDir: dir,
		Files: []ChangedFile{{Path: file}}, Tools: []Tool{tool}, Timeout: timeout})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res[0]
}

// A tool that crashes or prints something other than its report fails with a note naming it, and
// nothing else fails.
func TestExternalToolGarbage(t *testing.T) {
	cases := map[string]struct {
		tool   Tool
		file   string
		script string
		want   string
	}{
		"bandit garbage":        {Bandit{}, "a.py", "echo 'Traceback (most recent call last):' >&2; echo garbage; exit 1\n", "bandit exited with status 1 and its output is not its report"},
		"bandit crash":          {Bandit{}, "a.py", "echo 'ImportError: no module named bandit' >&2; exit 2\n", "ImportError: no module named bandit"},
		"bandit other JSON":     {Bandit{}, "a.py", "echo '{}'\n", "no results"},
		"pyflakes garbage":      {Pyflakes{}, "a.py", "echo '<html>'; exit 1\n", "a line is not path:line:column: message"},
		"pyflakes crash":        {Pyflakes{}, "a.py", "echo 'ModuleNotFoundError: pyflakes' >&2; exit 2\n", "ModuleNotFoundError: pyflakes"},
		"pylint crash":          {Pylint{}, "a.py", "echo 'ModuleNotFoundError: pylint' >&2; exit 1\n", "ModuleNotFoundError: pylint"},
		"pylint other JSON":     {Pylint{}, "a.py", "echo '[]'\n", "pylint exited with status 0 and its output is not its report"},
		"shellcheck garbage":    {ShellCheck{}, "a.sh", "echo '<html>'; exit 1\n", "shellcheck exited with status 1"},
		"shellcheck bad option": {ShellCheck{}, "a.sh", "echo 'unrecognized option --norc' >&2; exit 3\n", "unrecognized option --norc"},
		"cppcheck garbage":      {Cppcheck{}, "a.c", "echo 'Segmentation fault' >&2; exit 139\n", "cppcheck exited with status 139"},
		"cppcheck old XML":      {Cppcheck{}, "a.c", "echo '<results><error file=\"a.c\" line=\"1\" id=\"x\" severity=\"error\" msg=\"m\"/></results>' >&2\n", "no <errors> of an XML version 2 report"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			switch c.tool.(type) {
			case Pyflakes:
				fakeTool(t, "pyflakes3", c.script)
			case Pylint:
				// pylint runs under the interpreter its #! line names: a fake one, the script.
				fakeTool(t, "python-for-pylint", c.script)
				python, _ := exec.LookPath("python-for-pylint")
				fakeTool(t, "pylint", "")
				p, _ := exec.LookPath("pylint")
				if err := os.WriteFile(p, []byte("#!"+python+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			default:
				fakeTool(t, c.tool.Name(), c.script)
			}
			r := runFake(t, c.tool, c.file, 0)
			if !strings.Contains(r.Failed, c.want) || r.Missing != "" || len(r.New) != 0 {
				t.Errorf("failed %q, want it to contain %q (missing %q, new %d)", r.Failed, c.want, r.Missing, len(r.New))
			}
		})
	}
}

// An ESLint that crashes (its configuration throws) fails with what it said.
func TestESLintCrash(t *testing.T) {
	needProgram(t, "node", "apt-get install nodejs")
	dir := t.TempDir()
	changetest.Write(t, filepath.Join(dir, "node_modules", "eslint", "bin", "eslint.js"), "console.error('Oops! Something went wrong! :('); process.exit(2);\n")
	changetest.Write(t, filepath.Join(dir, "eslint.config.mjs"), "export default [];\n")
	changetest.Write(t, filepath.Join(dir, "formatter.cjs"), "module.exports = () => '[]';\n")
	r := runFake(t, ESLint{Dir: dir}, "a.js", 0)
	if !strings.Contains(r.Failed, "eslint exited with status 2") || !strings.Contains(r.Failed, "Oops! Something went wrong!") {
		t.Errorf("failed = %q", r.Failed)
	}
}

// A tool that hangs is stopped at the timeout; one that prints without end is stopped when its
// output passes the bound.
func TestExternalToolBounds(t *testing.T) {
	fakeTool(t, "shellcheck", "exec sleep 30\n")
	start := time.Now()
	r := runFake(t, ShellCheck{}, "a.sh", 300*time.Millisecond)
	if !strings.Contains(r.Failed, "shellcheck did not finish within 300ms") || time.Since(start) > 10*time.Second {
		t.Errorf("hanging tool: failed %q after %s", r.Failed, time.Since(start))
	}
	fakeTool(t, "bandit", "exec yes\n")
	r = runFake(t, Bandit{}, "a.py", time.Minute)
	if !strings.Contains(r.Failed, "bandit printed more than 16 MiB; its report was not read") {
		t.Errorf("endless output: failed %q", r.Failed)
	}
}

// The context's end stops the run with an error.
func TestExternalContextEnd(t *testing.T) {
	fakeTool(t, "shellcheck", "exec sleep 30\n")
	dir := t.TempDir()
	changetest.Write(t, filepath.Join(dir, "a.sh"), "x\n")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := Run(ctx, Options{BaseDir: dir, HeadDir: dir, Files: []ChangedFile{{Path: "a.sh"}}, Tools: []Tool{ShellCheck{}}})
	if err == nil || !strings.Contains(err.Error(), "shellcheck stopped") {
		t.Errorf("err = %v", err)
	}
}

// A tool runs in the tree, with none of the caller's variables: no token, key or debatebot
// setting reaches it.
func TestExternalToolEnvironment(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "ghp_secret")
	t.Setenv("DEBATEBOT_WEBHOOK_SECRET", "hook-secret")
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws-secret")
	// The fake ShellCheck reports its environment and working directory as one comment of a
	// code the catalog does not know.
	fakeTool(t, "shellcheck", `printf '{"comments":[{"file":"./a.sh","line":1,"column":1,"level":"error","code":9999,"message":"%s"}]}' "$(pwd) $(env | sort | tr '\n' ' ' | tr -d '"\\')"; exit 1`+"\n")
	dir := t.TempDir()
	changetest.Write(t, filepath.Join(dir, "a.sh"), "x\n")
	res, err := Run(context.Background(), Options{HeadDir: dir, Files: []ChangedFile{{Path: "a.sh"}}, Tools: []Tool{ShellCheck{}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res[0].New) != 1 {
		t.Fatalf("result %+v", res[0])
	}
	f := res[0].New[0]
	for _, secret := range []string{"ghp_secret", "hook-secret", "sk-secret", "aws-secret", "GITHUB_", "DEBATEBOT_", "OPENAI_"} {
		if strings.Contains(f.Message, secret) {
			t.Errorf("the tool saw %q: %s", secret, f.Message)
		}
	}
	abs, _ := filepath.EvalSymlinks(dir)
	if !strings.HasPrefix(f.Message, "SC9999: "+abs+" ") || !strings.Contains(f.Message, "PATH=") || !strings.Contains(f.Message, "HOME=") {
		t.Errorf("message %q: want the tree as working directory, PATH and a HOME", f.Message)
	}
	// A code the catalog does not know is reported under the tool's catch-all rule, by the
	// tool's level (error: medium).
	if f.Rule != "shellcheck:other" || f.Severity != voting.SeverityMedium || f.Path != "a.sh" {
		t.Errorf("finding %+v", f)
	}
}

// Parsers read real reports (as the tools print them) and the catalog caps their severities (the
// catalog's processor, which runOne runs first); rules the catalog does not know still come
// through.
func TestExternalParsers(t *testing.T) {
	bandit := `{"errors":[{"filename":"./b.py","reason":"syntax error while parsing AST from file"}],"results":[
{"filename":"./a.py","issue_confidence":"HIGH","issue_severity":"HIGH","issue_text":"subprocess call with shell=True identified, security issue.","line_number":8,"test_id":"B602","test_name":"subprocess_popen_with_shell_equals_true"},
{"filename":"./a.py","issue_confidence":"HIGH","issue_severity":"LOW","issue_text":"subprocess call with shell=True seems safe, but may be changed in the future, consider rewriting without shell","line_number":9,"test_id":"B602","test_name":"subprocess_popen_with_shell_equals_true"},
{"filename":"./a.py","issue_confidence":"HIGH","issue_severity":"MEDIUM","issue_text":"Use of insecure MD2, MD4, MD5, or SHA1 hash function.","line_number":12,"test_id":"B303","test_name":"blacklist"},
{"filename":"./a.py","issue_confidence":"MEDIUM","issue_severity":"HIGH","issue_text":"A new check.","line_number":13,"test_id":"B999","test_name":"new_check"}]}`
	eslint := `[{"filePath":"/t/a.js","messages":[{"ruleId":"security/detect-child-process","severity":1,"fatal":false,"message":"Found require(\"child_process\")","line":1,"column":1},{"ruleId":"security/detect-child-process","severity":1,"fatal":false,"message":"Found child_process.exec() with non Literal first argument","line":4,"column":3},{"ruleId":"no-unreachable","severity":2,"fatal":false,"message":"Unreachable code.","line":5,"column":3}]},{"filePath":"/t/c.js","messages":[{"ruleId":null,"severity":2,"fatal":true,"message":"Parsing error: Unexpected token (","line":1,"column":10}]}]`
	shellcheck := `{"comments":[{"file":"./a.sh","line":3,"endLine":3,"column":8,"endColumn":15,"level":"warning","code":2115,"message":"Use \"${var:?}\" to ensure this never expands to / .","fix":null},{"file":"./a.sh","line":4,"column":4,"level":"info","code":2086,"message":"Double quote to prevent globbing and word splitting."},{"file":"./b.sh","line":2,"column":4,"level":"error","code":1073,"message":"Couldn't parse this test expression. Fix to allow more checks."}]}`
	cppcheck := `<?xml version="1.0" encoding="UTF-8"?>
<results version="2">
    <cppcheck version="2.10"/>
    <errors>
        <error id="nullPointer" severity="error" msg="Null pointer dereference: p" verbose="Null pointer dereference: p" cwe="476" file0="src/a.c">
            <location file="src/a.c" line="8" column="17" info="Null pointer dereference"/>
            <location file="src/a.c" line="6" column="14" info="Assignment &apos;p=NULL&apos;, assigned value is 0"/>
            <symbol>p</symbol>
        </error>
        <error id="shadowVariable" severity="style" msg="Local variable x shadows outer variable" verbose="" file0="src/a.c">
            <location file="src/a.c" line="9" column="5"/>
        </error>
        <error id="somethingNew" severity="error" msg="A new defect" verbose="" file0="src/a.c">
            <location file="src/a.c" line="10" column="5"/>
        </error>
        <error id="syntaxError" severity="error" msg="Unmatched &apos;{&apos;. Configuration: &apos;&apos;." verbose="" file0="src/b.cpp">
            <location file="src/b.cpp" line="1" column="13"/>
        </error>
    </errors>
</results>`
	pyflakes := "./a.py:3:1: 'os' imported but unused\n./a.py:9:12: undefined name 'totl'\n./a.py:11:5: '...' % ... has 2 placeholder(s) but 1 substitution(s)\n./a.py:12:1: a message of a newer pyflakes\n"
	pyflakesErr := "./b.py:4:7: invalid syntax\ndef f(:\n      ^\n"
	pylint := `{"results": [{"type": "error", "module": "m0", "obj": "total", "line": 9, "column": 11, "path": "./a.py", "symbol": "undefined-variable", "message": "Undefined variable 'totl'", "message-id": "E0602"},
{"type": "warning", "module": "m0", "obj": "count", "line": 14, "column": 4, "path": "./a.py", "symbol": "useless-with-lock", "message": "'threading.Lock()' directly created in 'with' has no effect", "message-id": "W2101"},
{"type": "error", "module": "m1", "obj": "", "line": 2, "column": 1, "path": "./b.py", "symbol": "syntax-error", "message": "Parsing failed: 'invalid syntax (m1, line 2)'", "message-id": "E0001"},
{"type": "error", "module": "m0", "obj": "", "line": 20, "column": 0, "path": "./a.py", "symbol": "some-new-check", "message": "A new check in m0.f", "message-id": "E9999"}]}`
	cases := []struct {
		tool     Tool
		out      ToolOutput
		want     []string
		problems []string
	}{
		{Bandit{}, ToolOutput{Stdout: []byte(bandit), ExitCode: 1}, []string{
			"bandit:B602 ./a.py:8 high subprocess call with shell=True identified, security issue.",
			"bandit:B602 ./a.py:9 low subprocess call with shell=True seems safe, but may be changed in the future, consider rewriting without shell",
			"bandit:B303 ./a.py:12 low Use of insecure MD2, MD4, MD5, or SHA1 hash function.",
			"bandit:other ./a.py:13 medium B999: A new check.",
		}, []string{"./b.py: syntax error while parsing AST from file"}},
		{Pyflakes{}, ToolOutput{Stdout: []byte(pyflakes), Stderr: []byte(pyflakesErr), ExitCode: 1}, []string{
			"pyflakes:unused-import ./a.py:3 low 'os' imported but unused",
			"pyflakes:undefined-name ./a.py:9 medium undefined name 'totl'",
			"pyflakes:format-mismatch ./a.py:11 medium '...' % ... has 2 placeholder(s) but 1 substitution(s)",
			"pyflakes:other ./a.py:12 medium a message of a newer pyflakes",
		}, []string{"./b.py:4: invalid syntax"}},
		{Pylint{}, ToolOutput{Stdout: []byte(pylint)}, []string{
			"pylint:undefined-variable ./a.py:9 medium Undefined variable 'totl'",
			"pylint:useless-with-lock ./a.py:14 medium 'threading.Lock()' directly created in 'with' has no effect",
			"pylint:other ./a.py:20 medium some-new-check: A new check in f",
		}, []string{"./b.py:2: Parsing failed: 'invalid syntax (m1, line 2)'"}},
		{ESLint{}, ToolOutput{Stdout: []byte(eslint), ExitCode: 1}, []string{
			`eslint:security/detect-child-process /t/a.js:1 low Found require("child_process")`,
			"eslint:security/detect-child-process /t/a.js:4 high Found child_process.exec() with non Literal first argument",
			"eslint:no-unreachable /t/a.js:5 low Unreachable code.",
		}, []string{"/t/c.js:1: Parsing error: Unexpected token ("}},
		{ShellCheck{}, ToolOutput{Stdout: []byte(shellcheck), ExitCode: 1}, []string{
			`shellcheck:SC2115 ./a.sh:3 high Use "${var:?}" to ensure this never expands to / .`,
			"shellcheck:SC2086 ./a.sh:4 low Double quote to prevent globbing and word splitting.",
			"shellcheck:other ./b.sh:2 medium SC1073: Couldn't parse this test expression. Fix to allow more checks.",
		}, nil},
		{Cppcheck{}, ToolOutput{Stderr: []byte(cppcheck)}, []string{
			"cppcheck:nullPointer src/a.c:8 high Null pointer dereference: p (CWE-476)",
			"cppcheck:other src/a.c:9 low shadowVariable: Local variable x shadows outer variable",
			"cppcheck:other src/a.c:10 high somethingNew: A new defect",
		}, []string{"src/b.cpp:1: Unmatched '{'. Configuration: ''. (syntaxError)"}},
	}
	for _, c := range cases {
		found, problems, err := c.tool.Parse(&c.out)
		if err != nil {
			t.Errorf("%s: %v", c.tool.Name(), err)
			continue
		}
		found, _ = catalogCap{}.Process(found)
		var got []string
		for _, f := range found {
			got = append(got, fmt.Sprintf("%s %s:%d %s %s", f.Rule, f.Path, f.Line, f.Severity, f.Message))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s findings:\n  %s\nwant:\n  %s", c.tool.Name(), strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
		}
		var said []string
		for _, p := range problems {
			said = append(said, p.String())
		}
		if !slices.Equal(said, c.problems) {
			t.Errorf("%s problems %q, want %q", c.tool.Name(), problems, c.problems)
		}
	}
}

// Among findings of one key, the new one is the one whose line the base does not have, wherever
// it is in the file.
func TestCompareExternalPicksTheNewLine(t *testing.T) {
	f := func(line int, text string) located {
		return located{Finding: scan.Finding{Rule: "bandit:B602", Path: "a.py", Func: "run", Line: line, Message: "shell=True"}, text: text}
	}
	base := []located{f(3, "call(a, shell=True)"), f(5, "call(b, shell=True)")}
	head := []located{f(3, "call(a, shell=True)"), f(4, "call(new, shell=True)"), f(7, "call(b, shell=True)")}
	fresh, pre := compareExternal(base, head)
	if len(fresh) != 1 || fresh[0].Line != 4 || pre != 2 {
		t.Errorf("fresh %+v, pre-existing %d; want line 4 new, 2 pre-existing", fresh, pre)
	}
	// An edited line of a finding the base had is the same finding, not a new one.
	head = []located{f(3, "call(a, shell=True)"), f(6, "call(b2, shell=True)")}
	if fresh, pre := compareExternal(base, head); len(fresh) != 0 || pre != 2 {
		t.Errorf("edited line: fresh %+v, pre-existing %d", fresh, pre)
	}
}

// A tool's findings go through the catalog's cap, then the comparison with the base, in that
// order; the cap lowers a catalogued rule to the catalog's severity and leaves the catch-all
// rule and a less serious finding as the tool rated them.
func TestToolChain(t *testing.T) {
	var names []string
	for _, p := range toolChain(&toolComparison{}) {
		names = append(names, p.Name())
	}
	if got := strings.Join(names, ", "); got != "catalog severity cap, new in head" {
		t.Errorf("tool chain = %s", got)
	}
	if externalCatalogs[SourceBandit]["B303"].severity != voting.SeverityLow {
		t.Fatalf("bandit B303 is %s in the catalog; the test needs a rule capped at low", externalCatalogs[SourceBandit]["B303"].severity)
	}
	found := []scan.Finding{
		externalFinding(SourceBandit, "B303", voting.SeverityHigh, "a.py", 3, 1, "md5"),
		externalFinding(SourceBandit, "B999", voting.SeverityHigh, "a.py", 4, 1, "a new check"),
		externalFinding(SourceBandit, "B602", voting.SeverityMedium, "a.py", 5, 1, "shell=True"),
		{Source: SourceBandit, Rule: "pylint:undefined-variable", Severity: voting.SeverityHigh, Path: "a.py", Line: 6},
	}
	if found[0].Severity != voting.SeverityHigh {
		t.Fatalf("the parsed finding is already capped: %+v", found[0])
	}
	lines := map[string][]string{"a.py": {"import hashlib", "", "h = hashlib.md5(b)", "x()", "run(cmd, shell=True)", "y"}}
	cmp := &toolComparison{base: []located{{Finding: externalFinding(SourceBandit, "B602", voting.SeverityHigh, "a.py", 9, 1, "shell=True"), text: "run(cmd, shell=True)"}}, headLines: lines}
	fresh, errs := scan.RunChain(toolChain(cmp), found)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, f := range fresh {
		got = append(got, fmt.Sprintf("%s:%d %s", f.Rule, f.Line, f.Severity))
	}
	want := []string{"bandit:B303:3 low", "bandit:other:4 high", "pylint:undefined-variable:6 high"}
	if !slices.Equal(got, want) || cmp.preexisting != 1 {
		t.Errorf("chain kept %q with %d pre-existing; want %q and the moved B602 pre-existing", got, cmp.preexisting, want)
	}
}

func TestEnclosingScope(t *testing.T) {
	cases := []struct {
		path, src string
		line      int
		want      string
	}{
		{"a.py", "class A:\n    def run(self):\n        if x:\n            call()\n", 4, "A.run"},
		{"a.py", "def f():\n    x = 1\n# a comment at the margin\n    call()\n", 4, "f"},
		{"a.py", "call()\n", 1, ""},
		{"a.sh", "#!/bin/sh\npublish() {\n  rm -rf \"$T/\"\n}\n", 3, "publish"},
		{"a.sh", "function clean {\n\trm -rf x\n}\n", 2, "clean"},
		{"a.js", "function thumb(req) {\n  if (a) {\n    exec(x);\n  }\n}\n", 3, "thumb"},
		{"a.js", "const handler = async (req, res) => {\n  exec(x);\n};\n", 2, "handler"},
		{"a.ts", "export class Store {\n  async save(item: Item): Promise<void> {\n    eval(x);\n  }\n}\n", 3, "Store.save"},
		{"a.c", "#include <x.h>\n\nstatic int\ncopy(char *out)\n{\n    strcpy(out, x);\n}\n", 6, "copy"},
		{"a.c", "void copy_name(char *out) {\n    if (x) {\n        strcpy(out, x);\n    }\n}\n", 3, "copy_name"},
		{"a.rb", "def f\n  x\nend\n", 2, ""},
	}
	for _, c := range cases {
		if got := enclosingScope(c.path, strings.Split(c.src, "\n"), c.line); got != c.want {
			t.Errorf("%s line %d: scope %q, want %q", c.path, c.line, got, c.want)
		}
	}
}

// Every rule of the catalogs is a check with what the review's rule catalog needs.
func TestExternalChecks(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Checks() {
		if seen[c.Rule] {
			t.Errorf("rule %s listed twice", c.Rule)
		}
		seen[c.Rule] = true
		if c.Title == "" || c.Fix == "" || c.URL == "" || c.Severity.Rank() == 0 || c.Topic == "" || !strings.HasPrefix(c.Rule, c.Source+":") {
			t.Errorf("check %+v", c)
		}
	}
	for _, r := range []string{"bandit:B602", "bandit:other", "pyflakes:undefined-name", "pyflakes:other", "pylint:used-before-assignment", "pylint:other", "eslint:security/detect-child-process", "eslint:no-eval", "eslint:other", "shellcheck:SC2115", "shellcheck:other", "cppcheck:nullPointer", "cppcheck:other"} {
		if !seen[r] {
			t.Errorf("no check %s", r)
		}
	}
}

// A file a tool could not analyse is a problem of the result, named relative to the tree; what a
// tool says about a file outside the tree (a header included by an absolute or ../ path) is not
// repeated.
func TestExternalProblems(t *testing.T) {
	needProgram(t, "bandit", "apt-get install bandit")
	needProgram(t, "cppcheck", "apt-get install cppcheck")
	root := t.TempDir()
	tree := filepath.Join(root, "tree")
	changetest.Write(t, filepath.Join(root, "outside", "evil.h"), "int secret_value = ( ;\n")
	changetest.Write(t, filepath.Join(tree, "src", "a.c"), "#include \"../../outside/evil.h\"\nint f(void) { return 0; }\n")
	changetest.Write(t, filepath.Join(tree, "app", "bad.py"), "def broken(:\n    pass\n")
	res, err := Run(context.Background(), Options{HeadDir: tree,
		Files: []ChangedFile{{Path: "src/a.c"}, {Path: "app/bad.py"}}, Tools: []Tool{Bandit{}, Cppcheck{}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		switch r.Tool {
		case "bandit":
			if !slices.Equal(r.Problems, []string{"app/bad.py: syntax error while parsing AST from file"}) {
				t.Errorf("bandit problems %q", r.Problems)
			}
		case "cppcheck":
			if len(r.Problems) != 0 || len(r.New) != 0 || r.Failed != "" {
				t.Errorf("cppcheck: problems %q, new %+v, failed %q; want nothing about a header outside the tree", r.Problems, r.New, r.Failed)
			}
		}
	}
}

// A tool is given at most maxToolFiles files, each with its base file; the rest are counted as
// left out.
func TestExternalFilesBound(t *testing.T) {
	// The fake ShellCheck reports SC2115 on line 1 of every file it is given.
	fakeTool(t, "shellcheck", `printf '{"comments":['; sep=; for a in "$@"; do case "$a" in ./*) printf '%s{"file":"%s","line":1,"column":1,"level":"warning","code":2115,"message":"m"}' "$sep" "$a"; sep=,;; esac; done; printf ']}'; exit 1`+"\n")
	base, head := t.TempDir(), t.TempDir()
	var files []ChangedFile
	for i := range maxToolFiles + 3 {
		name := fmt.Sprintf("s%03d.sh", i)
		changetest.Write(t, filepath.Join(head, name), "x\n")
		if i >= 3 {
			changetest.Write(t, filepath.Join(base, name), "x\n") // every file but the first three is old
		}
		files = append(files, ChangedFile{Path: name})
	}
	res, err := Run(context.Background(), Options{BaseDir: base, HeadDir: head, Files: files, Tools: []Tool{ShellCheck{}}})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.Files != maxToolFiles || r.LeftOut != 3 || len(r.New) != 3 || r.Preexisting != maxToolFiles-3 || r.Failed != "" {
		t.Errorf("files %d, left out %d, new %d, pre-existing %d, failed %q", r.Files, r.LeftOut, len(r.New), r.Preexisting, r.Failed)
	}
}

// pylint never reads the tree's configuration nor loads what it names: a pylintrc, a setup.cfg
// and a pyproject.toml of the tree that ask for a plugin of the tree and an init-hook are all
// ignored, and neither runs.
func TestPylintIgnoresTheTreesConfiguration(t *testing.T) {
	needProgram(t, "pylint", "apt-get install pylint")
	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	hook := fmt.Sprintf("open(%q, 'w').close()", marker)
	changetest.Write(t, filepath.Join(dir, "pkg", "mod.py"), "def f():\n    return totl\n")
	changetest.Write(t, filepath.Join(dir, "pkg", "evil_plugin.py"), hook+"\ndef register(linter):\n    pass\n")
	for _, name := range []string{"pylintrc", ".pylintrc", filepath.Join("pkg", "pylintrc")} {
		changetest.Write(t, filepath.Join(dir, name), "[MAIN]\ninit-hook="+hook+"\nload-plugins=evil_plugin\ndisable=all\n")
	}
	changetest.Write(t, filepath.Join(dir, "setup.cfg"), "[pylint.MAIN]\ninit-hook="+hook+"\nload-plugins=evil_plugin\n")
	changetest.Write(t, filepath.Join(dir, "pyproject.toml"), "[tool.pylint.main]\ninit-hook = \""+strings.ReplaceAll(hook, `"`, `\"`)+"\"\nload-plugins = [\"evil_plugin\"]\n")
	res, err := Run(context.Background(), Options{HeadDir: dir, Files: []ChangedFile{{Path: "pkg/mod.py"}}, Tools: []Tool{Pylint{}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Failed != "" || len(res[0].New) != 1 || res[0].New[0].Rule != "pylint:undefined-variable" {
		t.Fatalf("results %+v: want pylint's own checks to run (the tree's disable=all ignored)", res)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the tree's init-hook or plugin ran")
	}
}

// A file larger than pylintMaxBytes is left out of pylint's run with a problem saying so; the
// others are still analysed.
func TestPylintLeavesOutLargeFiles(t *testing.T) {
	needProgram(t, "pylint", "apt-get install pylint")
	dir := t.TempDir()
	changetest.Write(t, filepath.Join(dir, "small.py"), "def f():\n    return totl\n")
	changetest.Write(t, filepath.Join(dir, "large.py"), "def f():\n    return totl\n"+strings.Repeat("# padding\n", pylintMaxBytes/10+1))
	res, err := Run(context.Background(), Options{HeadDir: dir, Files: []ChangedFile{{Path: "small.py"}, {Path: "large.py"}}, Tools: []Tool{Pylint{}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Failed != "" || len(res[0].New) != 1 || res[0].New[0].Path != "small.py" {
		t.Fatalf("results %+v: want the small file's finding only", res)
	}
	if len(res[0].Problems) != 1 || !strings.Contains(res[0].Problems[0], "large.py: larger than 128 KiB") {
		t.Errorf("problems %q", res[0].Problems)
	}
}
