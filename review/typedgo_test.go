package review_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/review/gittest"
	"github.com/debatebot/debatebot/review/reviewtest"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

func TestGitRangeGathersTypeCheckedFindings(t *testing.T) {
	repo := gittest.FromTrees(t, "evidence/testdata/basic/base", "evidence/testdata/basic/head")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the trees are materialised, to see them removed
	ctx := context.Background()
	c, err := review.FromGit(ctx, repo, "main..feature")
	if err != nil {
		t.Fatalf("FromGit: %v", err)
	}
	ev, notes, err := review.GatherEvidence(ctx, c, evidence.DefaultAnalyzers())
	if err != nil {
		t.Fatalf("GatherEvidence: %v", err)
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
		t.Fatalf("no nilness evidence at app/app.go:64:\n%s", reviewtest.Dump(ev))
	}
	if nil64.Analyzer != rules.AnalyzerGoVet || nil64.Stakeholder != rules.Maintainability || nil64.Severity != voting.SeverityHigh ||
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
		if len(reviewtest.Found(ev, rule)) == 0 {
			t.Errorf("no %s evidence:\n%s", rule, reviewtest.Dump(ev))
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "8 new finding(s), 2 pre-existing finding(s) left out") {
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
	c := reviewtest.ChangeOf(t, map[string]string{"app/app.go": "package app\n\nfunc F(p *int) int {\n\tif p == nil {\n\t\treturn *p\n\t}\n\treturn 0\n}\n"})
	ev, notes, err := review.GatherEvidence(context.Background(), c, evidence.DefaultAnalyzers())
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

// TestTypedFamiliesAreAnalyzersOfTheirOwn gathers a git range without the go vet family: the
// other families still report from the one shared analysis (one note), and no go vet pass runs.
func TestTypedFamiliesAreAnalyzersOfTheirOwn(t *testing.T) {
	repo := gittest.FromTrees(t, "evidence/testdata/basic/base", "evidence/testdata/basic/head")
	ctx := context.Background()
	c, err := review.FromGit(ctx, repo, "main..feature")
	if err != nil {
		t.Fatalf("FromGit: %v", err)
	}
	var without []scan.Analyzer
	for _, a := range evidence.DefaultAnalyzers() {
		if a.Name() != rules.AnalyzerGoVet {
			without = append(without, a)
		}
	}
	if len(without) != len(evidence.DefaultAnalyzers())-1 {
		t.Fatalf("the go vet family is not an analyzer of its own")
	}
	ev, notes, err := review.GatherEvidence(ctx, c, without)
	if err != nil {
		t.Fatalf("GatherEvidence: %v", err)
	}
	for _, e := range ev {
		if e.Analyzer == rules.AnalyzerGoVet {
			t.Errorf("a go vet finding without the go vet analyzer: %+v", e)
		}
	}
	if len(reviewtest.Found(ev, "SA5007")) == 0 {
		t.Errorf("no staticcheck evidence:\n%s", reviewtest.Dump(ev))
	}
	if len(notes) != 1 || strings.Contains(notes[0], "go vet") || !strings.Contains(notes[0], "staticcheck") {
		t.Errorf("notes = %q", notes)
	}
}

// Every type-checked check is a rule of the catalog with a stakeholder of the default panel.
func TestTypedChecksAreRules(t *testing.T) {
	for _, name := range []string{"nilness", "lostcancel", "copylocks", "httpresponse", "SA5007", "SA6000"} {
		r, ok := rules.Rules[name]
		if !ok {
			t.Errorf("%s is not a rule", name)
			continue
		}
		if r.Stakeholder != rules.Maintainability && r.Stakeholder != rules.Performance || !r.Severity.Valid() || r.Warrant == "" || r.Fix == "" || r.Title == "" {
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
	c, err := review.ReadDiffOnBase(strings.NewReader(string(diff)), "sql.diff", 1<<20, base)
	if err != nil {
		t.Fatal(err)
	}
	ev, _, err := review.GatherEvidence(context.Background(), c, evidence.DefaultAnalyzers())
	if err != nil {
		t.Fatal(err)
	}
	var sql []toulmin.Evidence
	for _, e := range ev {
		if rules.Rules[e.Rule].CWE == "CWE-89" {
			sql = append(sql, e)
		}
	}
	if len(sql) != 1 || sql[0].Rule != rules.RuleSQLInjection || sql[0].Line != 12 || !strings.Contains(sql[0].Message, "also found by gosec (gosec:G201 at line 11)") {
		t.Fatalf("SQL injection evidence:\n%s", reviewtest.Dump(sql))
	}
}

// debateGit debates a git range of two trees offline.
func debateGit(t *testing.T, base, head string) *toulmin.Transcript {
	t.Helper()
	repo := gittest.FromTrees(t, base, head)
	ctx := context.Background()
	c, err := review.FromGit(ctx, repo, "main..feature")
	if err != nil {
		t.Fatalf("FromGit: %v", err)
	}
	tr, err := (&review.Debate{Change: c, Protocol: toulmin.Standard(), Clock: reviewtest.FixedClock()}).Run(ctx)
	if err != nil {
		t.Fatalf("debate: %v", err)
	}
	return tr
}

func requiredAt(rec []string, prefix string) bool {
	for _, r := range rec {
		if strings.HasPrefix(r, prefix) {
			return true
		}
	}
	return false
}

// The comparison of protections joins the catalog: a removed check is a high security finding
// that the offline debate turns into a required change at the line that lost it, with the
// rule's own fix; a lock moved after its read is required of the maintainability stakeholder.
func TestOfflineDebateRequiresRestoringProtections(t *testing.T) {
	tr := debateGit(t, "evidence/testdata/weakened/base", "evidence/testdata/weakened/head")
	rec := tr.Record
	if rec.Decision == voting.Approve || rec.Decision == voting.ApproveWithChanges {
		t.Errorf("decision %s with protections removed", rec.Decision)
	}
	for _, want := range []string{
		"guards/guards.go:26: " + rules.Rules[evidence.RuleGuardRemoved].Fix,
		"conc/conc.go:61: " + rules.Rules[evidence.RuleLockMovedAfterRead].Fix,
	} {
		if !requiredAt(rec.RequiredChanges, want) {
			t.Errorf("no required change %q in %q", want, rec.RequiredChanges)
		}
	}
	// One defect, one finding: the hand-written analyzer's path traversal at the same call is
	// named in the removed check's finding, not argued again.
	var at26 []toulmin.Evidence
	for _, e := range tr.Evidence {
		if e.Path == "guards/guards.go" && e.Line == 26 {
			at26 = append(at26, e)
		}
	}
	if len(at26) != 1 || at26[0].Rule != evidence.RuleGuardRemoved || !strings.Contains(at26[0].Message, "also found by go-ast (path-traversal at line 26)") {
		t.Errorf("evidence at guards/guards.go:26:\n%s", reviewtest.Dump(at26))
	}
	r := rules.Rules[evidence.RuleGuardRemoved]
	if r.Stakeholder != rules.Security || r.Severity != voting.SeverityHigh || !strings.HasPrefix(r.Reference, "debatebot guard-removed, CWE-693: https://cwe.mitre.org/") ||
		!strings.Contains(r.Warrant, "no longer checks") || r.Rebuttal == "" || r.TradeOff == "" {
		t.Errorf("rule guard-removed = %+v", r)
	}
	for _, id := range []string{evidence.RuleLockAfterRead, evidence.RuleLockMovedAfterRead} {
		if rules.Rules[id].Stakeholder != rules.Maintainability {
			t.Errorf("%s argued by %s", id, rules.Rules[id].Stakeholder)
		}
	}
	for _, id := range []string{evidence.RuleQueryInLoop} {
		if rules.Rules[id].Stakeholder != rules.Performance {
			t.Errorf("%s argued by %s", id, rules.Rules[id].Stakeholder)
		}
	}
}

// A query per iteration through a helper is a medium performance finding: by the performance
// policy (a medium finding is fixed before merge), it is a required change and the change is
// approved with changes, not blocked.
func TestOfflineDebateQueryInLoopIsARequiredChange(t *testing.T) {
	base, head := t.TempDir(), t.TempDir()
	store := "package store\n\nimport (\n\t\"context\"\n\t\"database/sql\"\n)\n\n// Store reads users.\ntype Store struct{ DB *sql.DB }\n\n" +
		"// Name reads one user's name.\nfunc (s *Store) Name(ctx context.Context, id int64) (string, error) {\n\tvar n string\n\terr := s.DB.QueryRowContext(ctx, \"SELECT name FROM users WHERE id = ?\", id).Scan(&n)\n\treturn n, err\n}\n\n" +
		"// Names reads the names of the ids.\nfunc (s *Store) Names(ctx context.Context, ids []int64) []string {\n\tvar out []string\n%s\treturn out\n}\n"
	for dir, body := range map[string]string{
		base: "\tout = append(out, \"\")\n",
		head: "\tfor _, id := range ids {\n\t\tn, _ := s.Name(ctx, id)\n\t\tout = append(out, n)\n\t}\n",
	} {
		changetest.Write(t, dir+"/go.mod", "module example.com/q\n\ngo 1.22\n")
		changetest.Write(t, dir+"/store/store.go", fmt.Sprintf(store, body))
		changetest.Write(t, dir+"/store/store_test.go", "package store\n\nimport \"testing\"\n\nfunc TestNames(t *testing.T) {\n\tif len((&Store{}).Names(nil, nil)) != 0 {\n\t\tt.Fatal(\"names of no ids\")\n\t}\n}\n")
	}
	changetest.Write(t, head+"/store/store_test.go", "package store\n\nimport \"testing\"\n\nfunc TestNames(t *testing.T) {\n\tif len((&Store{}).Names(nil, []int64{})) != 0 {\n\t\tt.Fatal(\"names of no ids\")\n\t}\n}\n")
	rec := debateGit(t, base, head).Record
	want := "store/store.go:22: " + rules.Rules[evidence.RuleQueryInLoop].Fix
	if !requiredAt(rec.RequiredChanges, want) {
		t.Errorf("no required change %q in %q", want, rec.RequiredChanges)
	}
	if rec.Decision != voting.ApproveWithChanges {
		t.Errorf("decision %s, want %s for a medium performance finding", rec.Decision, voting.ApproveWithChanges)
	}
}
