package evidence

import (
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/appends"
	"golang.org/x/tools/go/analysis/passes/assign"
	"golang.org/x/tools/go/analysis/passes/atomic"
	"golang.org/x/tools/go/analysis/passes/bools"
	"golang.org/x/tools/go/analysis/passes/copylock"
	"golang.org/x/tools/go/analysis/passes/deepequalerrors"
	"golang.org/x/tools/go/analysis/passes/defers"
	"golang.org/x/tools/go/analysis/passes/errorsas"
	"golang.org/x/tools/go/analysis/passes/httpresponse"
	"golang.org/x/tools/go/analysis/passes/ifaceassert"
	"golang.org/x/tools/go/analysis/passes/loopclosure"
	"golang.org/x/tools/go/analysis/passes/lostcancel"
	"golang.org/x/tools/go/analysis/passes/nilfunc"
	"golang.org/x/tools/go/analysis/passes/nilness"
	"golang.org/x/tools/go/analysis/passes/printf"
	"golang.org/x/tools/go/analysis/passes/shift"
	"golang.org/x/tools/go/analysis/passes/sigchanyzer"
	"golang.org/x/tools/go/analysis/passes/slog"
	"golang.org/x/tools/go/analysis/passes/stdmethods"
	"golang.org/x/tools/go/analysis/passes/stringintconv"
	"golang.org/x/tools/go/analysis/passes/structtag"
	"golang.org/x/tools/go/analysis/passes/testinggoroutine"
	"golang.org/x/tools/go/analysis/passes/timeformat"
	"golang.org/x/tools/go/analysis/passes/unmarshal"
	"golang.org/x/tools/go/analysis/passes/unsafeptr"
	"golang.org/x/tools/go/analysis/passes/unusedresult"
	"golang.org/x/tools/go/analysis/passes/waitgroup"
	"honnef.co/go/tools/analysis/lint"
	"honnef.co/go/tools/staticcheck"
)

// vetPasses are the golang.org/x/tools passes that find bugs, with their severity and topic.
// Passes that only judge style (or need the build system: asmdecl, cgocall, buildtag) are not run.
var vetPasses = []struct {
	a        *analysis.Analyzer
	severity string
	topic    string
}{
	{nilness.Analyzer, SeverityHigh, TopicCorrectness},
	{lostcancel.Analyzer, SeverityHigh, TopicResource},
	{copylock.Analyzer, SeverityHigh, TopicConcurrency},
	{httpresponse.Analyzer, SeverityHigh, TopicResource},
	{atomic.Analyzer, SeverityHigh, TopicConcurrency},
	{loopclosure.Analyzer, SeverityHigh, TopicConcurrency},
	{waitgroup.Analyzer, SeverityHigh, TopicConcurrency},
	{testinggoroutine.Analyzer, SeverityMedium, TopicConcurrency},
	{unusedresult.Analyzer, SeverityMedium, TopicCorrectness},
	{printf.Analyzer, SeverityMedium, TopicCorrectness},
	{shift.Analyzer, SeverityMedium, TopicCorrectness},
	{stringintconv.Analyzer, SeverityMedium, TopicCorrectness},
	{unmarshal.Analyzer, SeverityHigh, TopicCorrectness},
	{errorsas.Analyzer, SeverityHigh, TopicCorrectness},
	{nilfunc.Analyzer, SeverityMedium, TopicCorrectness},
	{bools.Analyzer, SeverityMedium, TopicCorrectness},
	{assign.Analyzer, SeverityMedium, TopicCorrectness},
	{appends.Analyzer, SeverityMedium, TopicCorrectness},
	{deepequalerrors.Analyzer, SeverityMedium, TopicCorrectness},
	{defers.Analyzer, SeverityMedium, TopicCorrectness},
	{ifaceassert.Analyzer, SeverityMedium, TopicCorrectness},
	{sigchanyzer.Analyzer, SeverityMedium, TopicConcurrency},
	{slog.Analyzer, SeverityMedium, TopicCorrectness},
	{stdmethods.Analyzer, SeverityMedium, TopicCorrectness},
	{structtag.Analyzer, SeverityMedium, TopicCorrectness},
	{timeformat.Analyzer, SeverityMedium, TopicCorrectness},
	{unsafeptr.Analyzer, SeverityMedium, TopicCorrectness},
}

var checks = buildChecks()

func buildChecks() []Check {
	var out []Check
	for _, p := range vetPasses {
		out = append(out, Check{Rule: p.a.Name, Source: "go vet", Title: firstLine(p.a.Doc), URL: p.a.URL,
			Severity: p.severity, Topic: p.topic, analyzer: p.a})
	}
	for _, a := range staticcheck.Analyzers {
		if a.Doc.NonDefault {
			continue // staticcheck itself does not run these unless asked
		}
		doc := a.Doc.Compile()
		sev := SeverityMedium
		if doc.Severity == lint.SeverityError {
			sev = SeverityHigh
		}
		topic := TopicCorrectness
		switch {
		case strings.HasPrefix(a.Analyzer.Name, "SA2"):
			topic = TopicConcurrency
		case strings.HasPrefix(a.Analyzer.Name, "SA6"):
			topic, sev = TopicPerformance, SeverityMedium
		case strings.HasPrefix(a.Analyzer.Name, "SA4"), strings.HasPrefix(a.Analyzer.Name, "SA9"):
			if sev != SeverityHigh {
				sev = SeverityLow // useless or dubious code: worth a follow-up, not a block
			}
		}
		out = append(out, Check{Rule: a.Analyzer.Name, Source: "staticcheck", Title: doc.Title,
			URL: "https://staticcheck.dev/docs/checks/#" + a.Analyzer.Name, Severity: sev, Topic: topic, analyzer: a.Analyzer})
	}
	out = append(out, linterChecks()...)
	out = append(out, debatebotChecks()...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Rule < out[j].Rule })
	return out
}

// Checks lists every check the runner runs, ordered by rule: the go/analysis checks (the
// project's own among them), then gosec's rules ("gosec:G201", ...), then the rules of the
// base/head comparison of protections (weakened.go).
func Checks() []Check {
	return append(append(append([]Check(nil), checks...), gosecCatalog...), weakenedChecks()...)
}

var gosecCatalog = gosecChecks()

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSuffix(s, ".")
}
