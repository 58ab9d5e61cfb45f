package evidence

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

// lengthGuardFindings runs the Go AST checks on a testdata file of testdata/lengthguard, added
// whole by the change, and returns its findings of the length-guard rules as rule@line.
func lengthGuardFindings(t *testing.T, name string) []string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "lengthguard", name))
	if err != nil {
		t.Fatal(err)
	}
	c := changetest.Versions(t, [3]string{"guard/" + strings.TrimSuffix(name, ".go") + ".go", "", string(src)})
	ev, _, err := scan.GatherWithNotes(t.Context(), c, []scan.Analyzer{goAnalyzer{}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ev {
		if e.Rule == rules.RuleIndexUnguarded || e.Rule == rules.RulePrefixMatch {
			got = append(got, fmt.Sprintf("%s@%d", e.Rule, e.Line))
		}
	}
	return got
}

// The length-guard analysis finds an index on the right of || whose length test is under && on
// the left, a loop bounded by one string that indexes another, and a token matcher that accepts
// a prefix; the correct variants (parenthesised guard, both bounds, equal lengths, fixed-size
// arrays, a copy made with the same length) raise nothing.
func TestLengthGuards(t *testing.T) {
	want := []string{rules.RuleIndexUnguarded + "@6", rules.RuleIndexUnguarded + "@16", rules.RulePrefixMatch + "@38"}
	if got := lengthGuardFindings(t, "defect.go"); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("defect.go: findings %v, want %v", got, want)
	}
	if got := lengthGuardFindings(t, "correct.go"); len(got) > 0 {
		t.Errorf("correct.go: findings %v, want none", got)
	}
}
