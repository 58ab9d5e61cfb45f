package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/gittest"
)

// caseRepo makes the case repository id under trees, as the materializer does: tags base and
// head on the base and head trees (head holds only what it changes; the rest is base's).
func caseRepo(t *testing.T, trees, id, base, head string) {
	t.Helper()
	dir := gittest.FromTrees(t, base, head)
	for _, tag := range [][2]string{{"base", "main"}, {"head", "feature"}} {
		if out, err := exec.Command("git", "-C", dir, "tag", tag[0], tag[1]).CombinedOutput(); err != nil {
			t.Fatalf("git tag: %v: %s", err, out)
		}
	}
	if err := os.Rename(dir, filepath.Join(trees, id)); err != nil {
		t.Fatal(err)
	}
}

// benchFixture makes the fake cases' trees and case file: go-001 (dev), the nil dereference a
// change makes possible at api/user.go:19; go-002 (check), a harmless change; go-003 (check),
// a case with no tree. It returns the case file, the folder of trees and the rows.
func benchFixture(t *testing.T) (cases, trees, rows string) {
	t.Helper()
	trees, benign := t.TempDir(), t.TempDir()
	caseRepo(t, trees, "go-001", "../../handlers/testdata/nilguard/base", "../../handlers/testdata/nilguard/head")
	if err := os.WriteFile(filepath.Join(benign, "NOTES.md"), []byte("# Notes\n\nUsers are described by name.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	caseRepo(t, trees, "go-002", "../../handlers/testdata/nilguard/base", benign)
	cases = filepath.Join(t.TempDir(), "cases.tsv")
	rows = "id\tlang\tkind\tclass\trepo\tfix\tbase_side\texclude\tdefect\tcve\tsummary\n" +
		"go-001\tgo\tdefect\tcorrectness\tacme/shop\t" + strings.Repeat("a", 40) + "\tfix\t-\tapi/user.go:19\t-\tthe fallback for a missing user is dropped, so a nil user is dereferenced\n" +
		"go-002\tgo\tbenign\tnone\tacme/shop\t" + strings.Repeat("1", 40) + "\tparent\t-\t-\t-\tnotes added\n" +
		"go-003\tgo\tbenign\tnone\tacme/shop\t" + strings.Repeat("2", 40) + "\tparent\t-\t-\t-\tno tree built for it\n"
	if err := os.WriteFile(cases, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	return cases, trees, rows
}

// bench debates each selected case on its trees and judges it: the nil dereference a change
// makes possible (found only by the type-checked analysis of the whole trees) is found at its
// line, the harmless change is approved; with --diff (hunks only) the defect is missed; --split
// keeps only the cases of that part (fix shas from 0 to 5 are check, the others dev); a
// missing tree is a failed case, never a crash; a malformed case file is refused with its line.
// Each line and total gives the changed Go packages fully type-checked and the wall time.
func TestBenchJudgesRealCasesOnTheirTrees(t *testing.T) {
	cases, trees, rows := benchFixture(t)
	code, out, errOut := runCmd(t, "", nil, "bench", "--cases", cases, "--trees", trees)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	t.Log(out)
	for _, want := range []string{"go-001       dev   go         defect correctness", "found (", "go-002       check go         benign none        approve              ok",
		"go-003", "FAILED: no case repository", "[types 1/1]", "types        1/1 changed Go packages fully type-checked (100%)", "time         wall median", "dev: 1 cases: found 1/1 (100%), benign failed 0/0", "check: 2 cases: found 0/0, benign failed 1/2", "all: 3 cases: found 1/1 (100%), benign failed 1/2"} {
		if !strings.Contains(out, want) {
			t.Errorf("the listing lacks %q", want)
		}
	}

	code, out, errOut = runCmd(t, "", nil, "bench", "--cases", cases, "--trees", trees, "--diff", "--split", "dev")
	if code != 0 {
		t.Fatalf("--diff: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "missed") || !strings.Contains(out, "dev: 1 cases: found 0/1 (0%)") || strings.Contains(out, "go-002") {
		t.Errorf("--diff --split dev: want go-001 alone, missed from the hunks:\n%s", out)
	}

	bad := filepath.Join(t.TempDir(), "bad.tsv")
	if err := os.WriteFile(bad, []byte(strings.Replace(rows, "api/user.go:19", "api/user.go", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCmd(t, "", nil, "bench", "--cases", bad, "--trees", trees)
	if code != 2 || !strings.Contains(errOut, "bad.tsv:2: go-001: defect") {
		t.Errorf("a malformed row: exit %d, %q; want 2 and the file, line and case", code, errOut)
	}
}

// bench --explain follows each case's line with its findings of substance (severity, rule,
// analyzer, path:line), the one at the defect line marked, and ends with the rule table: the
// rule that cites the defect counts one case found in one repository; --rules prints the table
// without the findings; without either flag neither is printed.
func TestBenchExplainsFindingsAndRules(t *testing.T) {
	cases, trees, _ := benchFixture(t)
	code, out, errOut := runCmd(t, "", nil, "bench", "--cases", cases, "--trees", trees, "--explain")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	t.Log(out)
	lines := strings.Split(out, "\n")
	var rule string
	for i, l := range lines {
		if strings.HasPrefix(l, "go-001") {
			for _, f := range lines[i+1:] {
				if !strings.HasPrefix(f, "    ") {
					break
				}
				if strings.Contains(f, "api/user.go:") && strings.HasSuffix(f, "<- defect") {
					rule = strings.Fields(f)[1]
				}
			}
		}
	}
	if rule == "" {
		t.Fatalf("--explain: no finding of go-001 at api/user.go marked as citing the defect:\n%s", out)
	}
	row := tableRow(out, rule)
	if row == nil || row[1] != "1" || row[2] != "1" || row[3] != "1" || row[6] != "0" || row[len(row)-1] != "go-001" {
		t.Errorf("the rule table's row of %s is %q; want found 1, 1 repository, cited 1, no benign held back, found in go-001", rule, row)
	}

	code, out, errOut = runCmd(t, "", nil, "bench", "--cases", cases, "--trees", trees, "--rules", "go-001")
	if code != 0 {
		t.Fatalf("--rules: exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "<- defect") || tableRow(out, rule) == nil {
		t.Errorf("--rules: want the rule table and no findings listed:\n%s", out)
	}
	code, out, _ = runCmd(t, "", nil, "bench", "--cases", cases, "--trees", trees, "go-001")
	if code != 0 || strings.Contains(out, "<- defect") || strings.Contains(out, "benign held") {
		t.Errorf("without --explain or --rules: exit %d, want neither findings nor the table:\n%s", code, out)
	}
}

// tableRow is the fields of the rule table's row of rule in out, or nil.
func tableRow(out, rule string) []string {
	table := false
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && f[0] == "rule" && strings.Contains(l, "benign held") {
			table = true
		} else if table && len(f) > 0 && f[0] == rule {
			return f
		}
	}
	return nil
}
