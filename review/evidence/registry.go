package evidence

import (
	"github.com/debatebot/debatebot/review/evidence/compare"
	"github.com/debatebot/debatebot/review/evidence/external"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

// The registry: every built-in analyzer, in the order it runs. Everything that produces findings
// is an Analyzer (review/evidence/scan: Name, and Analyze, which reports into the Scan with s.Report,
// s.ReportSeverity, s.Mitigation and says what it did with s.Note); what they report goes
// through the scan's processors (scan/chain.go) before the debate sees it.
//
// To add an analyzer:
//   - of its own kind: write a type with Name and Analyze in a file of its own, declare its rules
//     in the rule catalog (rules/rules.go, or an init of its file as checks.go and external/external_adapter.go
//     do), add it to DefaultAnalyzers below, and test it on code you write (testdata/) both
//     firing and not firing on the correct variant;
//   - a go/analysis pass (a maintained Go linter, a vet pass, a check of the project's own): add
//     it to its list in checks.go (vetPasses), maintained.go or debatebot.go; its family's
//     analyzer (typedAnalyzer: go vet, staticcheck, go linter, gosec, debatebot) reports what it
//     finds new in head (comparisonChain). The families share one load of base and head per
//     scan (typedLoad), in which every family the gathering runs is analysed;
//   - an external tool of another language: implement external.Tool in a file of its own and add
//     it to DefaultTools (external/external.go); it runs here as its own analyzer (toolAnalyzer), over the
//     changed files of its language in base and head;
//   - a line rule: add it to lineRules (lines.go), which lineAnalyzer runs over added lines.

// DefaultAnalyzers returns every built-in analyzer, in the order it runs: an analyzer may read
// what those before it left (the trees they materialised, the lines whole-tree analysis reached).
// The order is also the precedence of their findings: when two analyzers found one defect with
// the same severity, the scan's processors keep the type-checked finding, else the earlier
// analyzer's (the type-checked families count as one).
func DefaultAnalyzers() []scan.Analyzer {
	out := []scan.Analyzer{
		secretsAnalyzer{}, // credentials in added lines (secrets.go)
		goAnalyzer{},      // AST checks of Go files whose head content parses, without types (goast.go)
	}
	for _, src := range typedFamilies {
		// The type-checked Go analysis of base and head, one analyzer per family of checks (go
		// vet, staticcheck, go linter, gosec, debatebot), sharing one load (typed.go, runner.go).
		out = append(out, typedAnalyzer{source: src})
	}
	for _, t := range external.DefaultTools() {
		out = append(out, toolAnalyzer{tool: t.Name()}) // bandit, pyflakes, pylint, ESLint, ShellCheck, Cppcheck
	}
	return append(out,
		lineAnalyzer{},            // line rules over files no AST check reads (lines.go: lineRules)
		compare.RemovedAnalyzer{}, // checks, guards and releases the change removes (compare/removed.go)
		compare.TimerAnalyzer{},   // JavaScript timers whose clearing the change removed (removed_timers.go)
		compare.NullishAnalyzer{}, // JavaScript tests for undefined or null the change dropped (removed_nullish.go)
		PromptInjectionAnalyzer{}, // text of the change aimed at an AI reviewer (change_rules.go)
		changeAnalyzer{},          // the change as a whole: dependencies, removed API, tests, size (change_rules.go)
	)
}

// toolAnalyzer is one external tool of DefaultTools as an analyzer of the registry. The tool is
// taken from DefaultTools when it runs, so that it reads its settings then (ESLint's folder).
type toolAnalyzer struct {
	tool string
}

func (a toolAnalyzer) Name() string { return a.tool }

func (a toolAnalyzer) Analyze(s *scan.Scan) {
	for _, t := range external.DefaultTools() {
		if t.Name() == a.tool {
			external.Analyzer{Tools: []external.Tool{t}}.Analyze(s)
		}
	}
}
