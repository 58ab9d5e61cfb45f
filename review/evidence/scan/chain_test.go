package scan

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/voting"
)

// brief writes findings as "severity rule source path:line message" lines, for comparing a
// processor's output with what a test expects.
func brief(found []Finding) string {
	var b strings.Builder
	for _, f := range found {
		fmt.Fprintf(&b, "%s %s %s %s:%d %s", f.Severity, f.Rule, f.Source, f.Path, f.Line, f.Message)
		if f.Mitigates != "" {
			b.WriteString(" mitigates " + f.Mitigates)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// processorCase is one table row: findings in, the brief of the findings out.
type processorCase struct {
	name string
	in   []Finding
	want []string
}

func runProcessorCases(t *testing.T, p Processor, cases []processorCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := append([]Finding(nil), c.in...)
			got, err := p.Process(in)
			if err != nil {
				t.Fatalf("%s failed: %v", p.Name(), err)
			}
			want := ""
			for _, w := range c.want {
				want += w + "\n"
			}
			if brief(got) != want {
				t.Errorf("%s:\ngot:\n%swant:\n%s", p.Name(), brief(got), want)
			}
			if brief(in) != brief(c.in) {
				t.Errorf("%s changed its input:\n%s", p.Name(), brief(in))
			}
		})
	}
}

func TestUniquePlaceKeepsTheFirstOfEachRuleAndPlace(t *testing.T) {
	runProcessorCases(t, uniquePlace{}, []processorCase{
		{"same rule, same line", []Finding{
			{Severity: voting.SeverityMedium, Rule: rules.RuleIgnoredError, Source: "go-ast", Path: "a.go", Line: 3, Message: "first"},
			{Severity: voting.SeverityMedium, Rule: rules.RuleIgnoredError, Source: "lines", Path: "a.go", Line: 3, Message: "second"},
		}, []string{"medium ignored-error go-ast a.go:3 first"}},
		{"other line, other rule, other file", []Finding{
			{Severity: voting.SeverityMedium, Rule: rules.RuleIgnoredError, Source: "go-ast", Path: "a.go", Line: 3, Message: "m"},
			{Severity: voting.SeverityMedium, Rule: rules.RuleIgnoredError, Source: "go-ast", Path: "a.go", Line: 4, Message: "m"},
			{Severity: voting.SeverityLow, Rule: rules.RuleTodo, Source: "lines", Path: "a.go", Line: 3, Message: "m"},
			{Severity: voting.SeverityMedium, Rule: rules.RuleIgnoredError, Source: "go-ast", Path: "b.go", Line: 3, Message: "m"},
		}, []string{
			"medium ignored-error go-ast a.go:3 m", "medium ignored-error go-ast a.go:4 m",
			"low todo-added lines a.go:3 m", "medium ignored-error go-ast b.go:3 m",
		}},
		{"mitigations of different rules at one line", []Finding{
			{Severity: voting.SeverityLow, Rule: rules.RuleMitigation, Source: "go-ast", Path: "a.go", Line: 9, Message: "check", Mitigates: rules.RulePathTraversal},
			{Severity: voting.SeverityLow, Rule: rules.RuleMitigation, Source: "go-ast", Path: "a.go", Line: 9, Message: "check", Mitigates: rules.RulePathTraversal},
			{Severity: voting.SeverityLow, Rule: rules.RuleMitigation, Source: "go-ast", Path: "a.go", Line: 9, Message: "check", Mitigates: rules.RuleSQLInjection},
		}, []string{
			"low mitigation go-ast a.go:9 check mitigates path-traversal",
			"low mitigation go-ast a.go:9 check mitigates sql-injection",
		}},
		{"findings about the change's text differ by what they quote", []Finding{
			{Severity: voting.SeverityLow, Rule: rules.RuleTodo, Source: "change", Message: "title says TODO"},
			{Severity: voting.SeverityLow, Rule: rules.RuleTodo, Source: "change", Message: "description says TODO"},
			{Severity: voting.SeverityLow, Rule: rules.RuleTodo, Source: "change", Message: "title says TODO"},
		}, []string{"low todo-added change :0 title says TODO", "low todo-added change :0 description says TODO"}},
	})
}

func TestProcessNotesAreAtMostMedium(t *testing.T) {
	if !rules.Rules[rules.RuleLargeFunction].Process || rules.Rules[rules.RuleSQLInjection].Process {
		t.Fatal("the test's rules changed kind")
	}
	runProcessorCases(t, processNotes{}, []processorCase{
		{"a process note above medium is lowered", []Finding{
			{Severity: voting.SeverityHigh, Rule: rules.RuleLargeFunction, Source: "go-ast", Path: "a.go", Line: 1, Message: "long"},
		}, []string{"medium large-function go-ast a.go:1 long"}},
		{"a process note at or below medium and a finding of substance stay", []Finding{
			{Severity: voting.SeverityLow, Rule: rules.RuleLargeFile, Source: "change", Path: "b.go", Message: "big"},
			{Severity: voting.SeverityCritical, Rule: rules.RuleSQLInjection, Source: "go-ast", Path: "a.go", Line: 2, Message: "query"},
		}, []string{"low large-file change b.go:0 big", "critical sql-injection go-ast a.go:2 query"}},
	})
}

func TestAbsorbWeaknessTakesInEarlierFindingsOfItsWeakness(t *testing.T) {
	removed := Finding{Severity: voting.SeverityMedium, Rule: rules.RuleCheckRemoved, Source: rules.SourceDebatebot, Path: "a.go", Line: 20, Message: "check removed", CWE: "CWE-22"}
	runProcessorCases(t, absorbWeakness{}, []processorCase{
		{"a path traversal two lines away, before it", []Finding{
			{Severity: voting.SeverityHigh, Rule: rules.RulePathTraversal, Source: "go-ast", Path: "a.go", Line: 22, Message: "open"},
			removed,
		}, []string{"high check-removed debatebot a.go:20 check removed; also found by go-ast (path-traversal at line 22)"}},
		{"apart, in another file, a mitigation, another weakness, or after it", []Finding{
			{Severity: voting.SeverityHigh, Rule: rules.RulePathTraversal, Source: "go-ast", Path: "a.go", Line: 24, Message: "far"},
			{Severity: voting.SeverityHigh, Rule: rules.RulePathTraversal, Source: "go-ast", Path: "b.go", Line: 20, Message: "other file"},
			{Severity: voting.SeverityLow, Rule: rules.RuleMitigation, Source: "go-ast", Path: "a.go", Line: 20, Message: "check", Mitigates: rules.RulePathTraversal},
			{Severity: voting.SeverityHigh, Rule: rules.RuleSQLInjection, Source: "go-ast", Path: "a.go", Line: 20, Message: "query"},
			removed,
			{Severity: voting.SeverityHigh, Rule: rules.RulePathTraversal, Source: "go-ast", Path: "a.go", Line: 21, Message: "after"},
		}, []string{
			"high path-traversal go-ast a.go:24 far", "high path-traversal go-ast b.go:20 other file",
			"low mitigation go-ast a.go:20 check mitigates path-traversal", "high sql-injection go-ast a.go:20 query",
			"medium check-removed debatebot a.go:20 check removed", "high path-traversal go-ast a.go:21 after",
		}},
		{"a finding of its rule's own weakness takes in nothing", []Finding{
			{Severity: voting.SeverityHigh, Rule: rules.RulePathTraversal, Source: "go-ast", Path: "a.go", Line: 22, Message: "open"},
			{Severity: voting.SeverityMedium, Rule: rules.RuleCheckRemoved, Source: rules.SourceDebatebot, Path: "a.go", Line: 20, Message: "check removed"},
		}, []string{"high path-traversal go-ast a.go:22 open", "medium check-removed debatebot a.go:20 check removed"}},
	})
}

// TestScanChainDoesNotDependOnArrivalOrder runs the scan's chain over 400 orders of findings
// that the order-sensitive processors (unique place, absorb weakness, restated, corroborated)
// would each resolve differently by arrival, and wants one result.
func TestScanChainDoesNotDependOnArrivalOrder(t *testing.T) {
	// The ranks are the analyzers' places in the registry: go-ast 1, the type-checked families
	// 2, lines 4.
	in := []Finding{
		{Severity: voting.SeverityHigh, Rule: rules.RulePathTraversal, Source: "go-ast", Path: "a.go", Line: 21, Message: "open", rank: 1},
		{Severity: voting.SeverityMedium, Rule: rules.RuleCheckRemoved, Source: rules.SourceDebatebot, Path: "a.go", Line: 20, Message: "check removed", CWE: "CWE-22", rank: 2},
		{Severity: voting.SeverityMedium, Rule: rules.RuleIgnoredError, Source: "go-ast", Path: "a.go", Line: 7, Message: "not checked", rank: 1},
		{Severity: voting.SeverityMedium, Rule: "errcheck", Source: rules.AnalyzerGoLinter, Path: "a.go", Line: 7, Message: "dropped", rank: 2},
		{Severity: voting.SeverityHigh, Rule: rules.RuleSQLInjection, Source: "go-ast", Path: "b.go", Line: 10, Message: "query", rank: 1},
		{Severity: voting.SeverityHigh, Rule: rules.RuleSQLInjection, Source: "lines", Path: "b.go", Line: 9, Message: "formats", rank: 4},
		{Severity: voting.SeverityHigh, Rule: "gosec:G201", Source: rules.AnalyzerGosec, Path: "c.go", Line: 9, Message: "formatted", rank: 2},
		{Severity: voting.SeverityHigh, Rule: "gosec:G202", Source: rules.AnalyzerGosec, Path: "c.go", Line: 9, Message: "concatenated", rank: 2},
		{Severity: voting.SeverityLow, Rule: rules.RuleTodo, Source: "lines", Path: "d.go", Line: 3, Message: "first", rank: 4},
		{Severity: voting.SeverityLow, Rule: rules.RuleTodo, Source: "lines", Path: "d.go", Line: 3, Message: "second", rank: 4},
	}
	want := ""
	rng := rand.New(rand.NewPCG(19, 2))
	order := append([]Finding(nil), in...)
	for n := range 400 {
		got, errs := RunChain(scanChain(), append([]Finding(nil), order...))
		if len(errs) > 0 {
			t.Fatalf("chain failed: %v", errs)
		}
		if n == 0 {
			want = brief(got)
		} else if b := brief(got); b != want {
			t.Fatalf("order %d gave:\n%swhere the first order gave:\n%s", n, b, want)
		}
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	for _, part := range []string{
		"check removed; also found by go-ast (path-traversal at line 21)", // an earlier analyzer's, a line after
		"errcheck go linter a.go:7 dropped; also found by go-ast",
		"sql-injection go-ast b.go:10 query; also found by lines (sql-injection at line 9)", // the earlier analyzer's stays on a tie
		"gosec:G201 gosec c.go:9 formatted; also found by gosec (gosec:G202 at line 9)",
		"d.go:3 first",
	} {
		if !strings.Contains(want, part) {
			t.Errorf("the merged findings lack %q:\n%s", part, want)
		}
	}
	if strings.Contains(want, "d.go:3 second") {
		t.Errorf("the same rule at one place is kept twice:\n%s", want)
	}
}

func TestRestatedFoldsAMaintainedLinterIntoTheHandWrittenRuleItRestates(t *testing.T) {
	if rules.Rules["errcheck"].Severity != rules.Rules[rules.RuleIgnoredError].Severity {
		t.Fatalf("errcheck is %s and ignored-error %s: the tie case below needs them equal", rules.Rules["errcheck"].Severity, rules.Rules[rules.RuleIgnoredError].Severity)
	}
	runProcessorCases(t, restated{}, []processorCase{
		{"errcheck and ignored-error on one line, either first", []Finding{
			{Severity: voting.SeverityMedium, Rule: rules.RuleIgnoredError, Source: "go-ast", Path: "a.go", Line: 7, Message: "not checked"},
			{Severity: voting.SeverityMedium, Rule: "errcheck", Source: rules.AnalyzerGoLinter, Path: "a.go", Line: 7, Message: "dropped"},
			{Severity: voting.SeverityMedium, Rule: "errcheck", Source: rules.AnalyzerGoLinter, Path: "a.go", Line: 9, Message: "dropped"},
			{Severity: voting.SeverityMedium, Rule: rules.RuleIgnoredError, Source: "lines", Path: "a.go", Line: 9, Message: "assigned to _"},
		}, []string{
			"medium errcheck go linter a.go:7 dropped; also found by go-ast (ignored-error at line 7)",
			"medium errcheck go linter a.go:9 dropped; also found by lines (ignored-error at line 9)",
		}},
		{"the more severe stays", []Finding{
			{Severity: voting.SeverityHigh, Rule: rules.RuleIgnoredError, Source: "go-ast", Path: "a.go", Line: 7, Message: "not checked"},
			{Severity: voting.SeverityMedium, Rule: "errcheck", Source: rules.AnalyzerGoLinter, Path: "a.go", Line: 7, Message: "dropped"},
		}, []string{"high ignored-error go-ast a.go:7 not checked; also found by go linter (errcheck at line 7)"}},
		{"other lines, other files, other rules stay apart", []Finding{
			{Severity: voting.SeverityMedium, Rule: rules.RuleIgnoredError, Source: "go-ast", Path: "a.go", Line: 7, Message: "not checked"},
			{Severity: voting.SeverityMedium, Rule: "errcheck", Source: rules.AnalyzerGoLinter, Path: "a.go", Line: 8, Message: "dropped"},
			{Severity: voting.SeverityMedium, Rule: "errcheck", Source: rules.AnalyzerGoLinter, Path: "b.go", Line: 7, Message: "dropped"},
			{Severity: voting.SeverityLow, Rule: rules.RuleTodo, Source: "lines", Path: "b.go", Line: 7, Message: "todo"},
			{Severity: voting.SeverityMedium, Rule: "errcheck", Source: rules.AnalyzerGoLinter, Path: "c.go", Line: 1, Message: "one"},
			{Severity: voting.SeverityMedium, Rule: "errcheck", Source: rules.AnalyzerGoLinter, Path: "c.go", Line: 1, Message: "two"},
		}, []string{
			"medium ignored-error go-ast a.go:7 not checked", "medium errcheck go linter a.go:8 dropped",
			"medium errcheck go linter b.go:7 dropped", "low todo-added lines b.go:7 todo",
			"medium errcheck go linter c.go:1 one", "medium errcheck go linter c.go:1 two",
		}},
	})
}

func TestCorroboratedMergesOneWeaknessAcrossAnalyzers(t *testing.T) {
	runProcessorCases(t, corroborated{}, []processorCase{
		{"the type-checked finding stays on a tie", []Finding{
			{Severity: voting.SeverityHigh, Rule: rules.RuleSQLInjection, Source: "go-ast", Path: "a.go", Line: 10, Message: "query"},
			{Severity: voting.SeverityHigh, Rule: "gosec:G201", Source: rules.AnalyzerGosec, Path: "a.go", Line: 9, Message: "formatted"},
		}, []string{"high gosec:G201 gosec a.go:9 formatted; also found by go-ast (sql-injection at line 10)"}},
		{"one analyzer's findings on different lines stay apart", []Finding{
			{Severity: voting.SeverityHigh, Rule: rules.RuleSQLInjection, Source: "go-ast", Path: "a.go", Line: 10, Message: "one"},
			{Severity: voting.SeverityHigh, Rule: rules.RuleSQLInjection, Source: "go-ast", Path: "a.go", Line: 11, Message: "two"},
		}, []string{"high sql-injection go-ast a.go:10 one", "high sql-injection go-ast a.go:11 two"}},
	})
}

func TestBySeverityOrdersTheMostSevereFirstThenByPlace(t *testing.T) {
	runProcessorCases(t, bySeverity{}, []processorCase{
		{"severity, path, line, rule", []Finding{
			{Severity: voting.SeverityLow, Rule: rules.RuleTodo, Source: "lines", Path: "a.go", Line: 1, Message: "m"},
			{Severity: voting.SeverityHigh, Rule: rules.RuleSQLInjection, Source: "go-ast", Path: "b.go", Line: 1, Message: "m"},
			{Severity: voting.SeverityHigh, Rule: rules.RulePathTraversal, Source: "go-ast", Path: "a.go", Line: 5, Message: "m"},
			{Severity: voting.SeverityHigh, Rule: rules.RuleCommandInjection, Source: "go-ast", Path: "a.go", Line: 5, Message: "m"},
			{Severity: voting.SeverityCritical, Rule: rules.RuleSecret, Source: "secrets", Path: "z.go", Line: 9, Message: "m"},
		}, []string{
			"critical hardcoded-secret secrets z.go:9 m", "high command-injection go-ast a.go:5 m",
			"high path-traversal go-ast a.go:5 m", "high sql-injection go-ast b.go:1 m", "low todo-added lines a.go:1 m",
		}},
	})
}

// failing is a processor that always fails, for the chain's test.
type failing struct{}

func (failing) Name() string { return "failing" }

func (failing) Process([]Finding) ([]Finding, error) { return nil, errors.New("broken") }

func TestRunChainLeavesAFailedProcessorOutAndSaysSo(t *testing.T) {
	in := []Finding{
		{Severity: voting.SeverityHigh, Rule: rules.RuleLargeFunction, Source: "go-ast", Path: "a.go", Line: 1, Message: "long"},
		{Severity: voting.SeverityHigh, Rule: rules.RuleLargeFunction, Source: "go-ast", Path: "a.go", Line: 1, Message: "long"},
	}
	got, errs := RunChain([]Processor{uniquePlace{}, failing{}, processNotes{}}, in)
	if want := "medium large-function go-ast a.go:1 long\n"; brief(got) != want {
		t.Errorf("chain gave:\n%swant:\n%s", brief(got), want)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "failing processor failed") || !strings.Contains(errs[0].Error(), "broken") {
		t.Errorf("errors = %v", errs)
	}
}

func TestScanChainOrder(t *testing.T) {
	var names []string
	for _, p := range scanChain() {
		names = append(names, p.Name())
	}
	want := "place order, unique place, process notes, absorb weakness, restated, corroborated, by severity"
	if got := strings.Join(names, ", "); got != want {
		t.Errorf("scan chain = %s, want %s", got, want)
	}
}

func TestScanFindingsRunsTheChain(t *testing.T) {
	src := "package a\n\nfunc f() {\n\tos.Chdir(\"/\")\n}\n"
	c := &change.Change{Files: []*change.File{{Path: "a.go", Status: change.StatusAdded, HasContent: true, Content: []byte(src)}}}
	s := New(c)
	s.analyzer = "go-ast"
	s.Report(rules.RuleIgnoredError, "a.go", 4, "the error returned by os.Chdir is not checked")
	s.Report(rules.RuleIgnoredError, "a.go", 4, "said twice")
	s.AddFrom(rules.AnalyzerGoLinter, "errcheck", voting.SeverityMedium, "a.go", 4, "the error that `os.Chdir` returns is dropped", "")
	s.ReportSeverity(rules.RuleLargeFunction, "high", "a.go", 3, "long")
	ev := s.Findings()
	if len(ev) != 2 {
		t.Fatalf("findings:\n%s", dump(ev))
	}
	if e := ev[1]; e.Rule != "errcheck" || e.Snippet != `os.Chdir("/")` ||
		e.Message != "the error that `os.Chdir` returns is dropped; also found by go-ast (ignored-error at line 4)" {
		t.Errorf("folded finding = %+v", e)
	}
	if e := ev[0]; e.Rule != rules.RuleLargeFunction || e.Severity != "medium" { // capped, then first by line
		t.Errorf("process note = %+v", e)
	}
}
