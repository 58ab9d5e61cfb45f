package evidence_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/reviewtest"
	"github.com/debatebot/debatebot/voting"
)

// The written regression cases' floors. These cases are written by us in the shape of real fixes:
// they guard against regressions and are never a quality figure (real code is measured by the
// benchmark of bench/realcases). minFoundPercent is what the analysis reaches on them today
// (never lower it), maxFalseAlarms keeps benign cases approved.
const (
	minFoundPercent = 96.7
	maxFalseAlarms  = 0
	// citeWithin is how far (in lines) a finding may be from the defect's line and still cite it.
	citeWithin = 3
)

// regressionCase is a case's case.json: a real fix commit reversed (a defect) or a real refactor (a
// benign change), reconstructed as a small tree.
type regressionCase struct {
	Kind     string `json:"kind"`     // defect or benign
	Category string `json:"category"` // security, performance, concurrency, resource, correctness
	Language string `json:"language"` // go, python, javascript
	// Defect is where the defect lives in head (defects only).
	Defect *struct {
		Path string `json:"path"`
		Line int    `json:"line"`
	} `json:"defect,omitempty"`
	Provenance struct {
		Repository    string `json:"repository"`
		Commit        string `json:"commit"`
		Licence       string `json:"licence"`
		URL           string `json:"url"`
		Advisory      string `json:"advisory,omitempty"`
		Fix           string `json:"fix"`
		Reconstructed *bool  `json:"reconstructed"`
		Note          string `json:"note"`
	} `json:"provenance"`
}

var (
	kinds      = []string{"defect", "benign"}
	categories = []string{"security", "performance", "concurrency", "resource", "correctness"}
	languages  = []string{"go", "python", "javascript"}
)

// readCase reads and checks dir/case.json.
func readCase(dir string) (*regressionCase, error) {
	data, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		return nil, err
	}
	var c regressionCase
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s/case.json: %w", dir, err)
	}
	p := c.Provenance
	switch {
	case !contains(kinds, c.Kind):
		return nil, fmt.Errorf("%s: kind %q is not one of %v", dir, c.Kind, kinds)
	case !contains(categories, c.Category):
		return nil, fmt.Errorf("%s: category %q is not one of %v", dir, c.Category, categories)
	case !contains(languages, c.Language):
		return nil, fmt.Errorf("%s: language %q is not one of %v", dir, c.Language, languages)
	case c.Kind == "defect" && (c.Defect == nil || c.Defect.Path == "" || c.Defect.Line <= 0):
		return nil, fmt.Errorf("%s: a defect case names the path and line of its defect in head", dir)
	case c.Kind == "benign" && c.Defect != nil:
		return nil, fmt.Errorf("%s: a benign case has no defect", dir)
	case p.Reconstructed == nil || p.Note == "":
		return nil, fmt.Errorf("%s: provenance says whether the code is reconstructed, with a note", dir)
	case *p.Reconstructed && (p.Repository == "" || len(p.Commit) != 40 || p.Licence == "" || p.URL == "" || p.Fix == ""):
		return nil, fmt.Errorf("%s: a reconstructed case names the repository, full commit, licence, URL and fix", dir)
	}
	return &c, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// caseResult is what the debate of one case gave.
type caseResult struct {
	name  string
	c     *regressionCase
	found bool
	// cited lists the rules of the findings of substance that cite the defect.
	cited    []string
	decision voting.Option
	required int
	// seen lists the findings of substance elsewhere (rule@path:line), to say what a missed
	// defect got instead.
	seen []string
}

// TestWrittenRegressionCases debates every case under testdata/regression as `debatebot debate --diff change.diff
// --dir base` does offline, and logs per case its decision and, for a defect, whether a finding
// of substance (not a process note) cites the defect within citeWithin lines; for a benign
// change, how many required changes it got. It fails below minFoundPercent of the defects found
// or above maxFalseAlarms benign changes with request_changes.
func TestWrittenRegressionCases(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "regression", "*", "case.json"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases under testdata/regression: %v", err)
	}
	var results []caseResult
	for _, p := range dirs {
		dir := filepath.Dir(p)
		name := filepath.Base(dir)
		c, err := readCase(dir)
		if err != nil {
			t.Fatal(err)
		}
		d := debateCase(t, dir)
		r := caseResult{name: name, c: c, decision: d.decision, required: d.required}
		if c.Kind == "defect" {
			r.cited = citing(d.evidence, c.Defect.Path, c.Defect.Line)
			r.found = len(r.cited) > 0
		}
		for _, e := range d.evidence {
			if substantive(e) && !r.found {
				r.seen = append(r.seen, e.rule+"@"+e.location)
			}
		}
		results = append(results, r)
	}
	var defects, found, benign, falseAlarms int
	type tally struct{ found, total, falseAlarms, benign int }
	byCategory, byLanguage := map[string]*tally{}, map[string]*tally{}
	add := func(m map[string]*tally, key string, r caseResult) {
		x := m[key]
		if x == nil {
			x = &tally{}
			m[key] = x
		}
		if r.c.Kind == "defect" {
			x.total++
			if r.found {
				x.found++
			}
		} else {
			x.benign++
			if r.decision == voting.RequestChanges {
				x.falseAlarms++
			}
		}
	}
	var lines []string
	for _, r := range results {
		line := fmt.Sprintf("%-50s %-6s %-11s %-10s %-20s", r.name, r.c.Kind, r.c.Category, r.c.Language, r.decision)
		if r.c.Kind == "defect" {
			defects++
			if r.found {
				found++
				line += " found (" + strings.Join(r.cited, ", ") + ")"
			} else {
				line += " MISSED"
				if len(r.seen) > 0 {
					line += " (found instead: " + strings.Join(r.seen, ", ") + ")"
				}
			}
		} else {
			benign++
			if r.decision == voting.RequestChanges {
				falseAlarms++
				line += " FALSE ALARM"
			}
			line += fmt.Sprintf(" %d required change(s)", r.required)
			if len(r.seen) > 0 {
				line += " (findings: " + strings.Join(r.seen, ", ") + ")"
			}
		}
		lines = append(lines, line)
		add(byCategory, r.c.Category, r)
		add(byLanguage, r.c.Language, r)
	}
	for _, l := range lines {
		t.Log(l)
	}
	summary := func(what string, m map[string]*tally) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			x := m[k]
			parts = append(parts, fmt.Sprintf("%s %d/%d found, %d/%d false alarms", k, x.found, x.total, x.falseAlarms, x.benign))
		}
		t.Logf("by %s: %s", what, strings.Join(parts, "; "))
	}
	pct := 0.0
	if defects > 0 {
		pct = 100 * float64(found) / float64(defects)
	}
	t.Logf("written regression cases (not a quality figure): defects found %d/%d (%.1f%%); false alarms (benign with request_changes) %d/%d", found, defects, pct, falseAlarms, benign)
	summary("category", byCategory)
	summary("language", byLanguage)
	if pct < minFoundPercent {
		t.Errorf("defects found %.1f%%, below the regression cases' floor of %.1f%%", pct, minFoundPercent)
	}
	if falseAlarms > maxFalseAlarms {
		t.Errorf("%d benign change(s) got request_changes, more than %d", falseAlarms, maxFalseAlarms)
	}
}

// cited is one item of a debate's evidence, as the tally reads it.
type cited struct {
	rule, path, location, mitigates string
	line                            int
}

// citing returns the rules of the findings of substance (neither process notes nor mitigations)
// at path within citeWithin lines of line.
func citing(ev []cited, path string, line int) []string {
	var rules []string
	for _, e := range ev {
		if !substantive(e) || e.path != path {
			continue
		}
		if d := e.line - line; d < -citeWithin || d > citeWithin {
			continue
		}
		if !contains(rules, e.rule) {
			rules = append(rules, e.rule)
		}
	}
	return rules
}

// substantive reports whether e is a finding of substance: neither a process note nor a
// mitigation.
func substantive(e cited) bool {
	return e.mitigates == "" && e.rule != rules.RuleMitigation && !rules.IsProcess(e.rule)
}

// debated is what the tally needs of a case's debate: its decision, how many changes it
// required, and the evidence it cited.
type debated struct {
	decision voting.Option
	required int
	evidence []cited
}

// debateCase holds the offline debate of dir/change.diff on dir/base as `debatebot debate --diff
// change.diff --dir base` does with the default configuration, with a fixed clock.
func debateCase(t testing.TB, dir string) debated {
	t.Helper()
	path := filepath.Join(dir, "change.diff")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := review.ReadDiffOnBase(f, path, review.DefaultMaxDiffBytes, filepath.Join(dir, "base"))
	if err != nil {
		t.Fatalf("%s does not apply to its base: %v", path, err)
	}
	repo := config.Default()
	protocol, err := repo.DebateProtocol("")
	if err != nil {
		t.Fatal(err)
	}
	d := &review.Debate{
		Change: c, Trigger: "cli", Protocol: protocol, Agents: agents.OfflinePanel(repo.Stakeholders), Panel: repo.Panel(),
		Ignore: repo.Ignore, Weights: *repo.Weights, Thresholds: repo.VotingThresholds(), Concurrency: repo.LLM.Concurrency,
		Clock: reviewtest.FixedClock(),
	}
	tr, err := d.Run(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	out := debated{decision: tr.Record.Decision, required: len(tr.Record.RequiredChanges)}
	for _, e := range tr.Evidence {
		out.evidence = append(out.evidence, cited{rule: e.Rule, path: e.Path, line: e.Line, location: e.Location(), mitigates: e.Mitigates})
	}
	return out
}
