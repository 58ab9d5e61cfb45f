package evidence

import (
	"strings"
	"testing"
)

func TestComparisonChainKeepsWhatIsNewInHead(t *testing.T) {
	at := func(f Finding, line int) Finding { f.Line = line; return f }
	nilDeref := Finding{Severity: SeverityHigh, Rule: "nilness", Source: AnalyzerGoVet, Path: "a.go", Func: "F", Message: "nil dereference of p"}
	printf := Finding{Severity: SeverityMedium, Rule: "printf", Source: AnalyzerGoVet, Path: "a.go", Func: "G", Message: "bad verb %d"}
	base := &TreeReport{Findings: []Finding{at(nilDeref, 3)}}
	head := &TreeReport{Findings: []Finding{at(nilDeref, 5), at(nilDeref, 8), at(printf, 12)}}
	c := &treeComparison{opts: Options{BaseDir: t.TempDir(), HeadDir: t.TempDir()}, base: base, head: head}
	got, errs := runChain(comparisonChain(c), head.Findings)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := "high nilness go vet a.go:8 nil dereference of p\nmedium printf go vet a.go:12 bad verb %d\n"
	if brief(got) != want || c.preexisting != 1 {
		t.Errorf("new in head (%d pre-existing):\n%swant (1 pre-existing):\n%s", c.preexisting, brief(got), want)
	}
	var names []string
	for _, p := range comparisonChain(c) {
		names = append(names, p.Name())
	}
	if got := strings.Join(names, ", "); got != "new in head, checked by callers, weakened protections, blinded packages" {
		t.Errorf("comparison chain = %s", got)
	}
}
