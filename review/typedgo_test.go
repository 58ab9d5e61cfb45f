package review

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/gittest"
	"github.com/debatebot/debatebot/toulmin"
)

func TestGitRangeGathersTypeCheckedFindings(t *testing.T) {
	repo := gittest.FromTrees(t, "evidence/testdata/basic/base", "evidence/testdata/basic/head")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the trees are materialised, to see them removed
	ctx := context.Background()
	c, err := FromGit(ctx, repo, "main..feature")
	if err != nil {
		t.Fatalf("FromGit: %v", err)
	}
	ev, notes, err := GatherWithNotes(ctx, c, DefaultAnalyzers())
	if err != nil {
		t.Fatalf("GatherWithNotes: %v", err)
	}
	var nil64 *toulmin.Evidence
	for i, e := range ev {
		if e.Path == "app/app.go" && e.Line == 72 {
			t.Errorf("pre-existing finding reported: %+v", e)
		}
		if e.Rule == "nilness" && e.Line == 64 {
			nil64 = &ev[i]
		}
	}
	if nil64 == nil {
		t.Fatalf("no nilness evidence at app/app.go:64:\n%s", dump(ev))
	}
	if nil64.Analyzer != evidence.AnalyzerGoVet || nil64.Stakeholder != Maintainability || nil64.Severity != toulmin.SeverityHigh ||
		nil64.Snippet != `log.Printf("using %s", cfg.Name)` || !strings.Contains(nil64.Message, "the change made it reachable") {
		t.Errorf("nilness evidence = %+v", *nil64)
	}
	if !c.HasLine("app/app.go", 64) {
		t.Errorf("the line of a whole-tree finding is not in the change's scope")
	}
	if c.HasLine("app/app.go", 72) {
		t.Errorf("a line no finding reached is in scope")
	}
	for _, rule := range []string{"lostcancel", "copylocks", "httpresponse", "SA5001", "SA5007"} {
		if len(found(ev, rule)) == 0 {
			t.Errorf("no %s evidence:\n%s", rule, dump(ev))
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "8 new finding(s), 1 pre-existing finding(s) left out") {
		t.Errorf("notes = %q", notes)
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		if strings.HasPrefix(e.Name(), "debatebot-trees-") {
			t.Errorf("materialised trees left behind: %s", e.Name())
		}
	}
}

func TestDiffWithoutTreesRunsNoTypedAnalysis(t *testing.T) {
	c := changeOf(t, map[string]string{"app/app.go": "package app\n\nfunc F(p *int) int {\n\tif p == nil {\n\t\treturn *p\n\t}\n\treturn 0\n}\n"})
	ev, notes, err := GatherWithNotes(context.Background(), c, DefaultAnalyzers())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ev {
		if evidence.IsWholeTree(e.Analyzer) {
			t.Errorf("typed evidence without trees: %+v", e)
		}
	}
	if len(notes) != 0 {
		t.Errorf("notes = %q", notes)
	}
}

func TestResumedDebateKeepsWholeTreeFindingsInScope(t *testing.T) {
	c := &Change{}
	scopeEvidence(c, []toulmin.Evidence{
		{Analyzer: evidence.AnalyzerStaticcheck, Rule: "SA5007", Path: "a/a.go", Line: 9},
		{Analyzer: "go-ast", Rule: evidence.RuleSQLInjection, Path: "b/b.go", Line: 3},
	})
	if !c.HasPath("a/a.go") || !c.HasLine("a/a.go", 9) || c.HasLine("a/a.go", 10) {
		t.Errorf("a staticcheck finding's line is not in scope alone")
	}
	if c.HasPath("b/b.go") {
		t.Errorf("a hand-written analyzer's finding brought its file into scope")
	}
}

// Every type-checked check is a rule of the catalog with a stakeholder of the default panel.
func TestTypedChecksAreRules(t *testing.T) {
	for _, name := range []string{"nilness", "lostcancel", "copylocks", "httpresponse", "SA5007", "SA6000"} {
		r, ok := Rules[name]
		if !ok {
			t.Errorf("%s is not a rule", name)
			continue
		}
		if r.Stakeholder != Maintainability && r.Stakeholder != Performance || !r.Severity.Valid() || r.Warrant == "" || r.Fix == "" || r.Title == "" {
			t.Errorf("rule %s = %+v", name, r)
		}
	}
}

// TestOneDefectIsOneFinding debates a query formatted from input over whole trees: gosec (G201,
// where the query is formatted) and the Go analyzer (where it is run) both see it, and it is one
// evidence item naming both, so one required change.
func TestOneDefectIsOneFinding(t *testing.T) {
	base := t.TempDir()
	if err := os.WriteFile(base+"/go.mod", []byte("module example.com/x\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	diff, err := os.ReadFile("evidence/testdata/cases/defect-go-sql-injection.diff")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ReadDiffOnBase(strings.NewReader(string(diff)), "sql.diff", 1<<20, base)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := Gather(context.Background(), c, DefaultAnalyzers())
	if err != nil {
		t.Fatal(err)
	}
	var sql []toulmin.Evidence
	for _, e := range ev {
		if Rules[e.Rule].CWE == "CWE-89" {
			sql = append(sql, e)
		}
	}
	if len(sql) != 1 || sql[0].Rule != evidence.RuleSQLInjection || sql[0].Line != 12 || !strings.Contains(sql[0].Message, "also found by gosec (gosec:G201 at line 11)") {
		t.Fatalf("SQL injection evidence:\n%s", dump(sql))
	}
}
