package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepoFromTrees builds a repository whose main branch holds the base tree and whose feature
// branch holds the head tree, one commit each.
func gitRepoFromTrees(t *testing.T, base, head string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required for this test; .ci/run installs it")
	}
	dir := t.TempDir()
	gitDo := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitDo("init", "-q", "-b", "main")
	copyTree(t, base, dir)
	gitDo("add", "-A")
	gitDo("commit", "-qm", "base")
	gitDo("checkout", "-qb", "feature")
	copyTree(t, head, dir)
	gitDo("add", "-A")
	gitDo("commit", "-qm", "Simplify the app")
	return dir
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(to, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", from, err)
	}
}

// The offline debate of a git range argues from the type-checked findings new in head: a lost
// cancel on a changed line, and a nil dereference on a line the change did not touch (its guard
// was removed two lines above), while the nil dereference the base already had is left out.
func TestDebateGitRangeTypeCheckedFindings(t *testing.T) {
	dir := gitRepoFromTrees(t, "../../review/evidence/testdata/basic/base", "../../review/evidence/testdata/basic/head")
	code, out, errOut := runCmd(t, "", nil, "debate", "--git", "main..feature", "--dir", dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rec struct {
		Decision struct {
			Decision string   `json:"decision"`
			Required []string `json:"required_changes"`
		} `json:"decision"`
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	t.Logf("record: %+v", rec.Decision)
	if rec.Decision.Decision != "request_changes" {
		t.Errorf("decision %q, want request_changes", rec.Decision.Decision)
	}
	for _, want := range []string{"app/app.go:64:", "app/app.go:39:"} {
		found := false
		for _, r := range rec.Decision.Required {
			found = found || strings.HasPrefix(r, want)
		}
		if !found {
			t.Errorf("no required change at %s: %q", want, rec.Decision.Required)
		}
	}
	for _, r := range rec.Decision.Required {
		if strings.HasPrefix(r, "app/app.go:72:") {
			t.Errorf("the pre-existing nil dereference in Old is required: %q", r)
		}
	}

	code, md, errOut := runCmd(t, "", nil, "debate", "--git", "main..feature", "--dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"type-checked Go analysis (go vet passes, staticcheck) of 2 package(s) in base and head: example.com/basic/app, example.com/basic/broken",
		"1 pre-existing finding(s) left out",
		"degraded: example.com/basic/broken (type information incomplete",
		"| `app/app.go:64` | nilness |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("transcript:\n%s", md)
	}
}
