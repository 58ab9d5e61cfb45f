package evidence

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
	"github.com/jingyugao/rowserrcheck/passes/rowserr"
	"github.com/kisielk/errcheck/errcheck"
	"github.com/ryanrolds/sqlclosecheck/pkg/analyzer"
	"github.com/sonatard/noctx"
	"github.com/timakin/bodyclose/passes/bodyclose"
	"go.uber.org/nilaway"
	nilawayconfig "go.uber.org/nilaway/config"
	"golang.org/x/tools/go/analysis"
)

// linter is one maintained analyzer: the rule it reports under, its severity and topic, and how
// its diagnostics read in the review (say, given the diagnostic and the call or expression at
// its position; nil drops the diagnostic).
type linter struct {
	a        *analysis.Analyzer
	title    string
	url      string
	severity voting.Severity
	topic    string
	say      func(d analysis.Diagnostic, at string) (string, bool)
	fix      string
}

// linters are the maintained analyzers, configured as golangci-lint configures them by default
// (errcheck with its default exclusions, nilaway without colours and on production code only).
// Their findings in _test.go files are left out, as the project's own analyses leave them out.
var linters = []linter{
	{bodyclose.Analyzer, "HTTP response body not closed", "https://github.com/timakin/bodyclose", voting.SeverityHigh, rules.TopicResource, sayBodyClose,
		"close the body on every path once the error is checked: defer resp.Body.Close()"},
	{analyzer.NewAnalyzer(), "SQL rows or statement not closed", "https://github.com/ryanrolds/sqlclosecheck", voting.SeverityHigh, rules.TopicResource, saySQLClose,
		"defer rows.Close() (or stmt.Close()) right after the error check"},
	{rowserr.NewAnalyzer("github.com/jmoiron/sqlx", "github.com/jackc/pgx/v4", "github.com/jackc/pgx/v5"), "rows.Err() not checked after iterating",
		"https://github.com/jingyugao/rowserrcheck", voting.SeverityMedium, rules.TopicCorrectness, sayRowsErr,
		"check rows.Err() after the loop and return its error"},
	{noctx.Analyzer, "Network, database or process call without a context", "https://github.com/sonatard/noctx", voting.SeverityLow, rules.TopicResource, sayNoCtx,
		"use the context-taking form of the call and pass the caller's context"},
	{errcheckReporter, "Error result not checked", "https://github.com/kisielk/errcheck", voting.SeverityMedium, rules.TopicCorrectness, keep,
		"handle the error: return it (wrapped with context), or log it where nothing can be returned"},
	{nilaway.Analyzer, "Possible nil dereference (nil flow)", "https://github.com/uber-go/nilaway", voting.SeverityMedium, rules.TopicCorrectness, sayNilAway,
		"check the value for nil before using it, or make the function that produces it never return nil"},
}

// nilawayMaxLines is the size of package (lines of Go outside tests) above which nilaway is left
// out: its inference grows faster than the package (under a second for 2,300 lines, several
// seconds of CPU for 5,000 on the benchmark), and the whole-tree review has a budget of seconds.
const nilawayMaxLines = 3000

func init() {
	// nilaway's defaults colour its messages for a terminal and group them by site.
	for name, v := range map[string]string{nilawayconfig.PrettyPrintFlag: "false", nilawayconfig.GroupErrorMessagesFlag: "false", nilawayconfig.ExcludeTestFilesFlag: "true"} {
		if err := nilawayconfig.Analyzer.Flags.Set(name, v); err != nil {
			panic(fmt.Sprintf("evidence: nilaway flag %s: %v", name, err))
		}
	}
	// Every nilaway pass requires its configuration first: a package over the budget stops there,
	// before any inference, and the report says nilaway did not run on it and why.
	configure := nilawayconfig.Analyzer.Run
	nilawayconfig.Analyzer.Run = func(pass *analysis.Pass) (any, error) {
		if n := goLines(pass); n > nilawayMaxLines {
			return nil, fmt.Errorf("left out: the package has %d lines of Go, over nilaway's budget of %d", n, nilawayMaxLines)
		}
		return configure(pass)
	}
}

// goLines counts the lines of the package's files outside tests.
func goLines(pass *analysis.Pass) int {
	n := 0
	for _, f := range nonTestFiles(pass) {
		if tf := pass.Fset.File(f.Pos()); tf != nil {
			n += tf.LineCount()
		}
	}
	return n
}

func linterChecks() []rules.Check {
	out := make([]rules.Check, 0, len(linters))
	for _, l := range linters {
		out = append(out, rules.Check{Rule: l.a.Name, Source: rules.AnalyzerGoLinter, Title: l.title, URL: l.url,
			Severity: l.severity, Topic: l.topic, Fix: l.fix, Analyzer: inWords(l)})
	}
	return out
}

// inWords wraps the analyzer of l into one that reports its diagnostics outside tests, in the
// words l.say gives them. The wrapper requires what the analyzer requires and shares its facts.
func inWords(l linter) *analysis.Analyzer {
	inner := l.a
	return &analysis.Analyzer{
		Name: inner.Name, Doc: inner.Doc, URL: l.url, Requires: inner.Requires, FactTypes: inner.FactTypes, ResultType: inner.ResultType,
		Run: func(pass *analysis.Pass) (any, error) {
			p := *pass
			p.Analyzer = inner
			p.Report = func(d analysis.Diagnostic) {
				if inTestFile(pass.Fset, d.Pos) {
					return
				}
				msg, ok := l.say(d, exprAt(pass, d.Pos))
				if !ok {
					return
				}
				d.Message = fmt.Sprintf("line %d: %s", pass.Fset.Position(d.Pos).Line, msg)
				pass.Report(d)
			}
			return inner.Run(&p)
		},
	}
}

// exprAt is the source text of the innermost call around pos, shortened for a message; empty
// when there is none.
func exprAt(pass *analysis.Pass, pos token.Pos) string {
	var found *ast.CallExpr
	for _, f := range pass.Files {
		if pos < f.Pos() || pos > f.End() {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil || pos < n.Pos() || pos >= n.End() {
				return false
			}
			if c, ok := n.(*ast.CallExpr); ok {
				found = c
			}
			return true
		})
	}
	if found == nil {
		return ""
	}
	return scan.Clip(types.ExprString(found.Fun), 80) + "(…)"
}

func keep(d analysis.Diagnostic, _ string) (string, bool) { return d.Message, true }

// callText is what the message says about the expression at the finding ("`resp, err :=
// http.Get(…)` ") or nothing when there is none.
func callText(at string) string {
	if at == "" {
		return ""
	}
	return "`" + at + "` "
}

func sayBodyClose(d analysis.Diagnostic, at string) (string, bool) {
	return "the HTTP response that " + callText(at) + "returns is not closed on every path (resp.Body.Close()); " +
		"an unclosed body keeps its connection out of the pool and its reading goroutine alive, so under load the client runs out of connections and memory", true
}

func saySQLClose(d analysis.Diagnostic, at string) (string, bool) {
	if strings.Contains(d.Message, "should use defer") {
		// sqlclosecheck's opinion on the form of a Close that does happen is style, not a leak.
		return "", false
	}
	return "the rows or statement " + callText(at) + "opens are not closed on every path (defer rows.Close() right after the error check); " +
		"each one left open holds a database connection until the garbage collector finds it, and the pool runs dry under load", true
}

func sayRowsErr(d analysis.Diagnostic, at string) (string, bool) {
	return "the rows " + callText(at) + "returns are iterated but rows.Err() is never checked; " +
		"an error that ends the iteration early (a dropped connection, a bad value) looks like the end of the results, so the caller gets a silently truncated answer", true
}

func sayNoCtx(d analysis.Diagnostic, at string) (string, bool) {
	what, use, _ := strings.Cut(d.Message, " must not be called. use ")
	if use == "" {
		return d.Message, true
	}
	return fmt.Sprintf("%s takes no context, so the call cannot be cancelled or given a deadline by its caller; a slow peer holds the goroutine (and the request that waits on it) for as long as it likes; use %s", what, use), true
}

// nilawayStep starts a step of nilaway's explanation of a nil flow (a line "\t- "), and
// nilawayPlace a place it names ("dir/file.go:12:3", the folder being the package's).
var (
	nilawayStep  = regexp.MustCompile(`(?m)^\s*- `)
	nilawayPlace = regexp.MustCompile(`(?:[^\s:\x60]*/)?([^/\s:\x60]+\.go:\d+)(?::\d+)?`)
)

// sayNilAway keeps nilaway's flow from the nil source to the dereference, step by step, with
// each place as file:line (nilaway's own paths start at the package's folder).
func sayNilAway(d analysis.Diagnostic, _ string) (string, bool) {
	if strings.HasPrefix(d.Message, "INTERNAL") {
		return "", false // nilaway could not analyse the package: not a finding
	}
	msg := nilawayPlace.ReplaceAllString(nilawayStep.ReplaceAllString(d.Message, "→ "), "$1")
	if _, flow, ok := strings.Cut(msg, "dereference point:"); ok {
		msg = flow
	}
	return "a value that can be nil reaches a dereference without a check, which panics at run time; the nil flows " +
		scan.Clip(strings.Join(strings.Fields(msg), " "), 500), true
}

// errcheckSkipped are the calls whose unchecked error golangci-lint's default exclusion (its
// "std-error-handling" preset) accepts: Close, Flush, printing, os.Remove and environment
// changes, writes to stdout and stderr. errcheck's own default exclusions apply before it.
var errcheckSkipped = regexp.MustCompile(`^((os\.)?std(out|err)\..*|.*Close|.*Flush|os\.Remove(All)?|.*print(f|ln)?|os\.(Un)?Setenv)$`)

// errcheckReporter reports errcheck's unchecked errors (its result, which names the call) that
// golangci-lint's defaults keep; errcheck's own diagnostics only say "unchecked error".
var errcheckReporter = &analysis.Analyzer{
	Name: "errcheck", Doc: errcheck.Analyzer.Doc, Requires: []*analysis.Analyzer{errcheck.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		res, ok := pass.ResultOf[errcheck.Analyzer].(errcheck.Result)
		if !ok {
			return nil, nil
		}
		for _, e := range res.UncheckedErrors {
			name := e.SelectorName
			if name == "" {
				name = e.FuncName
			}
			if name == "" || errcheckSkipped.MatchString(name) || errcheckSkipped.MatchString(e.FuncName) {
				continue
			}
			pos := posOf(pass, e.Pos)
			if !pos.IsValid() {
				continue
			}
			pass.Report(analysis.Diagnostic{Pos: pos, Message: fmt.Sprintf("the error that `%s` returns is dropped; "+
				"when the call fails the code goes on as if it had succeeded, with a partial or zero result, and nobody learns why", name)})
		}
		return nil, nil
	},
}

// posOf turns a position of the package's files back into a token.Pos.
func posOf(pass *analysis.Pass, p token.Position) token.Pos {
	for _, f := range pass.Files {
		tf := pass.Fset.File(f.Pos())
		if tf != nil && tf.Name() == p.Filename && p.Offset <= tf.Size() {
			return tf.Pos(p.Offset)
		}
	}
	return token.NoPos
}
