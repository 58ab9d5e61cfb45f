package evidence

import (
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/review/evidence/scan/scantest"
	"github.com/debatebot/debatebot/voting"
)

func TestComparisonChainKeepsWhatIsNewInHead(t *testing.T) {
	at := func(f scan.Finding, line int) scan.Finding { f.Line = line; return f }
	nilDeref := scan.Finding{Severity: voting.SeverityHigh, Rule: "nilness", Source: rules.AnalyzerGoVet, Path: "a.go", Func: "F", Message: "nil dereference of p"}
	printf := scan.Finding{Severity: voting.SeverityMedium, Rule: "printf", Source: rules.AnalyzerGoVet, Path: "a.go", Func: "G", Message: "bad verb %d"}
	base := &TreeReport{Findings: []scan.Finding{at(nilDeref, 3)}}
	head := &TreeReport{Findings: []scan.Finding{at(nilDeref, 5), at(nilDeref, 8), at(printf, 12)}}
	c := &treeComparison{opts: Options{BaseDir: t.TempDir(), HeadDir: t.TempDir()}, base: base, head: head}
	got, errs := scan.RunChain(comparisonChain(c), head.Findings)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := "high nilness go vet a.go:8 nil dereference of p\nmedium printf go vet a.go:12 bad verb %d\n"
	if scantest.Brief(got) != want || c.preexisting != 1 {
		t.Errorf("new in head (%d pre-existing):\n%swant (1 pre-existing):\n%s", c.preexisting, scantest.Brief(got), want)
	}
	var names []string
	for _, p := range comparisonChain(c) {
		names = append(names, p.Name())
	}
	if got := strings.Join(names, ", "); got != "new in head, checked by callers, weakened protections, blinded packages" {
		t.Errorf("comparison chain = %s", got)
	}
}
