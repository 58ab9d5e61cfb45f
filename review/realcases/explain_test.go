package realcases

import (
	"slices"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// RuleTable counts per rule: the defects found with it and their distinct repositories, a
// defect cited but approved (cited, not found), findings away from the defect lines, the benign
// cases it fires on and those held back; process notes and mitigations are not counted.
func TestRuleTable(t *testing.T) {
	judge := func(c Case, decision voting.Option, ev ...toulmin.Evidence) Result {
		tr := &toulmin.Transcript{Evidence: ev}
		tr.Record.Decision = decision
		return Judge(c, tr, nil)
	}
	defect := func(id, repo string) Case {
		return Case{ID: id, Kind: "defect", Repo: repo, Defects: []Location{{"a.go", 10, 12}}}
	}
	at := func(rule string, line int) toulmin.Evidence {
		return toulmin.Evidence{Analyzer: "go", Rule: rule, Path: "a.go", Line: line, Severity: voting.SeverityHigh}
	}
	results := []Result{
		judge(defect("d1", "acme/a"), voting.RequestChanges, at("guard", 11), at("guard", 40), at("noisy", 90)),
		judge(defect("d2", "acme/a"), voting.RequestChanges, at("guard", 16)),
		judge(defect("d3", "acme/b"), voting.RequestChanges, at("guard", 9), at("untested-change", 10)),
		judge(defect("d4", "acme/c"), voting.Approve, at("quiet", 10)),
		judge(Case{ID: "b1", Kind: "benign", Repo: "acme/a"}, voting.RequestChanges, at("noisy", 3), at("noisy", 4)),
		judge(Case{ID: "b2", Kind: "benign", Repo: "acme/b"}, voting.ApproveWithChanges, at("noisy", 3), toulmin.Evidence{Rule: "guard", Path: "a.go", Line: 1, Mitigates: "x"}),
	}
	table := RuleTable(results)
	var rules []string
	for _, s := range table {
		rules = append(rules, s.Rule)
	}
	if want := []string{"guard", "noisy", "quiet"}; !slices.Equal(rules, want) {
		t.Fatalf("rules %v, want %v (ordered by repositories found, process notes left out)", rules, want)
	}
	g, n, q := table[0], table[1], table[2]
	if !slices.Equal(g.Found, []string{"d1", "d3"}) || !slices.Equal(g.Repos, []string{"acme/a", "acme/b"}) || g.OffDefect != 2 || len(g.Benign) != 0 || g.Total != 4 {
		t.Errorf("guard: %+v; want found d1 d3 in acme/a and acme/b, 2 findings off the defect lines (d1:40, d2:16), none benign, 4 in all", g)
	}
	if len(n.Found) != 0 || n.OffDefect != 1 || !slices.Equal(n.Benign, []string{"b1", "b2"}) || !slices.Equal(n.Held, []string{"b1"}) || n.Total != 4 {
		t.Errorf("noisy: %+v; want nothing found, 1 off the defect lines, benign b1 b2 with b1 held back, 4 in all", n)
	}
	if len(q.Found) != 0 || !slices.Equal(q.Cited, []string{"d4"}) {
		t.Errorf("quiet: %+v; want d4 cited but not found (approved)", q)
	}
	var b strings.Builder
	if err := WriteExplain(&b, results[0]); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); strings.Count(got, "\n") != 3 || !strings.Contains(got, "a.go:11  <- defect") || strings.Contains(got, "a.go:40  <- defect") {
		t.Errorf("WriteExplain of d1:\n%s\nwant its three findings, a.go:11 alone marked", got)
	}
}
