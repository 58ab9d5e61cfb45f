package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/gittest"
	"github.com/debatebot/debatebot/voting"
)

const (
	externalBase = "../../review/evidence/external/testdata/external/base"
	externalHead = "../../review/evidence/external/testdata/external/head"
)

// The external analyzers are reached from the command line: a diff applied to a checkout of its
// base (--diff FILE --dir DIR) is analysed by bandit, ESLint, ShellCheck and Cppcheck over both
// trees, and the defects the change adds are required changes.
func TestDebateDiffOnBaseExternalFindings(t *testing.T) {
	for _, p := range []string{"bandit", "shellcheck", "cppcheck", "node"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed: install it (apt-get install %s) to run this", p, strings.Replace(p, "node", "nodejs", 1))
		}
	}
	if os.Getenv("DEBATEBOT_ESLINT_DIR") == "" {
		dir, err := filepath.Abs(filepath.Join("..", "..", "tools", "eslint"))
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("DEBATEBOT_ESLINT_DIR", dir)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("DEBATEBOT_ESLINT_DIR"), "node_modules", "eslint")); err != nil {
		t.Skip("ESLint is not set up: run 'npm ci --prefix tools/eslint' to run this")
	}
	repo := gittest.FromTrees(t, externalBase, externalHead)
	out, err := exec.Command("git", "-C", repo, "diff", "--no-color", "--no-ext-diff", "main..feature").Output()
	if err != nil {
		t.Fatalf("git diff: %v", err)
	}
	diff := filepath.Join(t.TempDir(), "d.diff")
	if err := os.WriteFile(diff, out, 0o644); err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	gittest.CopyTree(t, externalBase, base)

	rec := debateRecord(t, "debate", "--diff", diff, "--dir", base)
	if rec.Decision != voting.RequestChanges {
		t.Errorf("decision %q, want request_changes", rec.Decision)
	}
	for _, want := range []string{"app/run.py:17:", "app/run.py:22:", "web/server.js:9:", "scripts/deploy.sh:12:", "native/buf.c:16:"} {
		found := false
		for _, r := range rec.RequiredChanges {
			found = found || strings.HasPrefix(r, want)
		}
		if !found {
			t.Errorf("no required change at %s: %q", want, rec.RequiredChanges)
		}
	}
	for _, r := range rec.RequiredChanges {
		for _, old := range []string{"app/run.py:9:", "web/server.js:5:", "scripts/deploy.sh:8:", "native/buf.c:9:"} {
			if strings.HasPrefix(r, old) {
				t.Errorf("a defect the base had is required: %q", r)
			}
		}
	}

	code, md, errOut := runCmd(t, "", nil, "debate", "--diff", diff, "--dir", base)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"bandit (Python) on 2 file(s) in base and head: 2 new finding(s), 1 pre-existing finding(s) left out",
		"eslint (JavaScript/TypeScript) on 3 file(s) in base and head: 3 new finding(s), 3 pre-existing finding(s) left out",
		"shellcheck (shell) on 1 file(s) in base and head: 1 new finding(s), 1 pre-existing finding(s) left out",
		"cppcheck (C/C++) on 1 file(s) in base and head: 1 new finding(s), 1 pre-existing finding(s) left out",
		"| `scripts/deploy.sh:12` | shellcheck:SC2115 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
}
