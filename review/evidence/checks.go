package evidence

import (
	"sort"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/voting"
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
	severity voting.Severity
	topic    string
}{
	{nilness.Analyzer, voting.SeverityHigh, rules.TopicCorrectness},
	{lostcancel.Analyzer, voting.SeverityHigh, rules.TopicResource},
	{copylock.Analyzer, voting.SeverityHigh, rules.TopicConcurrency},
	{httpresponse.Analyzer, voting.SeverityHigh, rules.TopicResource},
	{atomic.Analyzer, voting.SeverityHigh, rules.TopicConcurrency},
	{loopclosure.Analyzer, voting.SeverityHigh, rules.TopicConcurrency},
	{waitgroup.Analyzer, voting.SeverityHigh, rules.TopicConcurrency},
	{testinggoroutine.Analyzer, voting.SeverityMedium, rules.TopicConcurrency},
	{unusedresult.Analyzer, voting.SeverityMedium, rules.TopicCorrectness},
	{printf.Analyzer, voting.SeverityMedium, rules.TopicCorrectness},
	{shift.Analyzer, voting.SeverityMedium, rules.TopicCorrectness},
	{stringintconv.Analyzer, voting.SeverityMedium, rules.TopicCorrectness},
	{unmarshal.Analyzer, voting.SeverityHigh, rules.TopicCorrectness},
	{errorsas.Analyzer, voting.SeverityHigh, rules.TopicCorrectness},
	{nilfunc.Analyzer, voting.SeverityMedium, rules.TopicCorrectness},
	{bools.Analyzer, voting.SeverityMedium, rules.TopicCorrectness},
	{assign.Analyzer, voting.SeverityMedium, rules.TopicCorrectness},
	{appends.Analyzer, voting.SeverityMedium, rules.TopicCorrectness},
	{deepequalerrors.Analyzer, voting.SeverityMedium, rules.TopicCorrectness},
	{defers.Analyzer, voting.SeverityMedium, rules.TopicCorrectness},
	{ifaceassert.Analyzer, voting.SeverityMedium, rules.TopicCorrectness},
	{sigchanyzer.Analyzer, voting.SeverityMedium, rules.TopicConcurrency},
	{slog.Analyzer, voting.SeverityMedium, rules.TopicCorrectness},
	{stdmethods.Analyzer, voting.SeverityMedium, rules.TopicCorrectness},
	{structtag.Analyzer, voting.SeverityMedium, rules.TopicCorrectness},
	{timeformat.Analyzer, voting.SeverityMedium, rules.TopicCorrectness},
	{unsafeptr.Analyzer, voting.SeverityMedium, rules.TopicCorrectness},
}

var checks = buildChecks()

func buildChecks() []rules.Check {
	var out []rules.Check
	for _, p := range vetPasses {
		out = append(out, rules.Check{Rule: p.a.Name, Source: "go vet", Title: firstLine(p.a.Doc), URL: p.a.URL,
			Severity: p.severity, Topic: p.topic, Analyzer: p.a})
	}
	for _, a := range staticcheck.Analyzers {
		if a.Doc.NonDefault {
			continue // staticcheck itself does not run these unless asked
		}
		doc := a.Doc.Compile()
		sev := voting.SeverityMedium
		if doc.Severity == lint.SeverityError {
			sev = voting.SeverityHigh
		}
		topic := rules.TopicCorrectness
		switch {
		case strings.HasPrefix(a.Analyzer.Name, "SA2"):
			topic = rules.TopicConcurrency
		case strings.HasPrefix(a.Analyzer.Name, "SA6"):
			topic, sev = rules.TopicPerformance, voting.SeverityMedium
		case strings.HasPrefix(a.Analyzer.Name, "SA4"), strings.HasPrefix(a.Analyzer.Name, "SA9"):
			if sev != voting.SeverityHigh {
				sev = voting.SeverityLow // useless or dubious code: worth a follow-up, not a block
			}
		}
		out = append(out, rules.Check{Rule: a.Analyzer.Name, Source: "staticcheck", Title: doc.Title,
			URL: "https://staticcheck.dev/docs/checks/#" + a.Analyzer.Name, Severity: sev, Topic: topic, Analyzer: a.Analyzer})
	}
	out = append(out, linterChecks()...)
	out = append(out, debatebotChecks()...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Rule < out[j].Rule })
	return out
}

// Checks lists every check the runner runs, ordered by rule: the go/analysis checks (the
// project's own among them), then gosec's rules ("gosec:G201", ...), then the rules of the
// base/head comparison of protections (weakened.go).
func Checks() []rules.Check {
	return append(append(append([]rules.Check(nil), checks...), gosecCatalog...), weakenedChecks()...)
}

var gosecCatalog = gosecChecks()

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSuffix(s, ".")
}
