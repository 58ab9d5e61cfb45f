package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/gittest"
	"github.com/debatebot/debatebot/voting"
)

const (
	typedBase = "../../review/evidence/testdata/basic/base"
	typedHead = "../../review/evidence/testdata/basic/head"
)

// The offline debate of a git range argues from the type-checked findings new in head: a lost
// cancel on a changed line, and a nil dereference on a line the change did not touch (its guard
// was removed two lines above), while the nil dereference the base already had is left out.
func TestDebateGitRangeTypeCheckedFindings(t *testing.T) {
	dir := gittest.FromTrees(t, typedBase, typedHead)
	checkTypedDebate(t, "debate", "--git", "main..feature", "--dir", dir)
}

// The same change as a diff applied to a checkout of its base (--diff FILE --dir DIR) gets the
// same whole-tree analysis and the same new findings; the checkout is left as it was.
func TestDebateDiffOnBaseTypeCheckedFindings(t *testing.T) {
	diff := typedDiff(t)
	base := t.TempDir()
	gittest.CopyTree(t, typedBase, base)
	before := treeFiles(t, base)
	checkTypedDebate(t, "debate", "--diff", diff, "--dir", base)
	after := treeFiles(t, base)
	if strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("the base directory changed: %q, was %q", after, before)
	}
	for _, p := range before {
		want, err := os.ReadFile(filepath.Join(typedBase, p))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(base, p)); string(got) != string(want) {
			t.Errorf("%s in the base directory was written", p)
		}
	}

	// A diff that does not apply to the directory is bad input, on one line.
	other := t.TempDir()
	gittest.CopyTree(t, typedHead, other)
	code, _, errOut := runCmd(t, "", nil, "debate", "--diff", diff, "--dir", other)
	if code != exitUsage || !strings.Contains(errOut, ": app/app.go: hunk 1 (@@ ") || !strings.Contains(errOut, "does not apply to the base") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("a diff applied to its own head: exit %d, stderr %q", code, errOut)
	}
}

// A diff alone is debated from its hunks, and the transcript says so.
func TestDebateDiffAloneSaysHunksOnly(t *testing.T) {
	code, md, errOut := runCmd(t, "", nil, "debate", "--diff", typedDiff(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Count(md, review.HunksOnlyNote) != 1 {
		t.Errorf("the transcript does not say once that the analysis saw hunks only:\n%s", md)
	}
	if strings.Contains(md, "type-checked Go analysis (go vet passes") {
		t.Errorf("a bare diff claims a type-checked analysis:\n%s", md)
	}
}

// typedDiff writes the diff of the basic testdata, base to head, as git writes it.
func typedDiff(t *testing.T) string {
	t.Helper()
	repo := gittest.FromTrees(t, typedBase, typedHead)
	out, err := exec.Command("git", "-C", repo, "diff", "--no-color", "--no-ext-diff", "main..feature").Output()
	if err != nil {
		t.Fatalf("git diff: %v", err)
	}
	name := filepath.Join(t.TempDir(), "d.diff")
	if err := os.WriteFile(name, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func treeFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkTypedDebate runs the debate of the basic testdata's change given by args and checks that
// it argues from the type-checked findings new in head.
func checkTypedDebate(t *testing.T, args ...string) {
	t.Helper()
	rec := debateRecord(t, args...)
	t.Logf("record: %+v", rec)
	if rec.Decision != voting.RequestChanges {
		t.Errorf("decision %q, want request_changes", rec.Decision)
	}
	for _, want := range []string{"app/app.go:64:", "app/app.go:39:"} {
		found := false
		for _, r := range rec.RequiredChanges {
			found = found || strings.HasPrefix(r, want)
		}
		if !found {
			t.Errorf("no required change at %s: %q", want, rec.RequiredChanges)
		}
	}
	for _, r := range rec.RequiredChanges {
		if strings.HasPrefix(r, "app/app.go:72:") {
			t.Errorf("the pre-existing nil dereference in Old is required: %q", r)
		}
	}

	code, md, errOut := runCmd(t, "", nil, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"type-checked Go analysis (go vet passes, staticcheck, bodyclose, sqlclosecheck, rowserrcheck, noctx, errcheck, nilaway, gosec, debatebot's own analyzers and comparison of protections) of 2 package(s) in base and head: example.com/basic/app, example.com/basic/broken",
		"2 pre-existing finding(s) left out",
		"degraded: example.com/basic/broken (type information incomplete",
		"| `app/app.go:64` | nilness |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
	if strings.Contains(md, review.HunksOnlyNote) {
		t.Errorf("a debate over whole trees says it saw hunks only")
	}
	if t.Failed() {
		t.Logf("transcript:\n%s", md)
	}
}

// gosec's taint rules find what the change lets request values reach: the offline security
// stakeholder cites them at their lines in the decision record, and Server.Old's command
// injection, which the base already had, is left out.
func TestDebateGitRangeGosecFindings(t *testing.T) {
	dir := gittest.FromTrees(t, "../../review/evidence/testdata/gosec/base", "../../review/evidence/testdata/gosec/head")
	rec := debateRecord(t, "debate", "--git", "main..feature", "--dir", dir)
	// The command injection is critical in gosec's taint rules: unrebutted, it escalates.
	if rec.Decision != voting.Escalate {
		t.Errorf("decision %q, want escalate", rec.Decision)
	}
	for _, want := range []string{
		"web/web.go:30: use a parameterised query",                                    // G701, with go-ast's sql-injection merged into it
		"web/web.go:68: run a fixed program with request values as checked arguments", // G702
		"web/web.go:76: resolve the request's path inside a fixed root",               // G703
		"web/web.go:87: fetch only URLs whose host is on an allowlist",                // G704
	} {
		found := false
		for _, r := range rec.RequiredChanges {
			found = found || strings.HasPrefix(r, want)
		}
		if !found {
			t.Errorf("no required change %q: %q", want, rec.RequiredChanges)
		}
	}
	for _, r := range rec.RequiredChanges {
		if strings.HasPrefix(r, "web/web.go:16:") || strings.HasPrefix(r, "web/web.go:21:") {
			t.Errorf("a finding of Server.Old, which the base had, is required: %q", r)
		}
	}

	code, md, errOut := runCmd(t, "", nil, "debate", "--git", "main..feature", "--dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"type-checked Go analysis (go vet passes, staticcheck, bodyclose, sqlclosecheck, rowserrcheck, noctx, errcheck, nilaway, gosec, debatebot's own analyzers and comparison of protections) of 1 package(s) in base and head: example.com/gosecdemo/web; 10 new finding(s), 6 pre-existing finding(s) left out",
		"| critical | `web/web.go:68` | gosec:G702 | security | Command injection via taint analysis: os/exec.Command (in Server.Convert); also found by gosec (gosec:G204 at line 68) |", // one defect, two of gosec's rules
		// One defect, one finding: gosec's taint rule with go-ast's.
		"| high | `web/web.go:30` | gosec:G701 | security | SQL injection via taint analysis: (*database/sql.DB).Query (in Server.Names); also found by go-ast (sql-injection at line 30) |",
		"| high | `web/web.go:87` | gosec:G704 | security | SSRF via taint analysis: net/http.Get (in Server.Proxy) |",
		"**Backing:** gosec G702, CWE-78: https://cwe.mitre.org/data/definitions/78.html",
		"**Escalated (critical_finding_unrebutted):** Command injection via taint analysis: os/exec.Command (in Server.Convert); also found by gosec (gosec:G204 at line 68) at web/web.go:68",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("transcript:\n%s", md)
	}
}
