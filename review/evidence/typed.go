package evidence

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/debatebot/debatebot/review/evidence/external"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

// IsWholeTree reports whether findings of analyzer come from the analysis of whole trees, so that
// they may sit on lines the diff does not show (a guard removed elsewhere made them new).
func IsWholeTree(analyzer string) bool {
	return rules.IsTypedGo(analyzer) || external.IsExternal(analyzer)
}

// topicWarrants say why a type-checked finding of each kind matters.
var topicWarrants = map[string]struct{ stakeholder, warrant, tradeOff string }{
	rules.TopicCorrectness: {rules.Maintainability, "Type-checked analysis of the whole head tree shows a defect on a path the code can take; it is a bug, not a matter of style", "none: the fix is local"},
	rules.TopicConcurrency: {rules.Maintainability, "Type-checked analysis shows a concurrency defect (a copied lock, a racy or misused primitive); such bugs corrupt state intermittently and are hard to reproduce", "none: the fix is local"},
	rules.TopicResource:    {rules.Performance, "Type-checked analysis shows a resource that is never released (a context, a response body); under load the leak exhausts memory, connections or goroutines", "none: releasing the resource costs nothing"},
	rules.TopicPerformance: {rules.Performance, "Type-checked analysis shows work repeated or wasted on every call", "a little more code"},
	rules.TopicSecurity:    {rules.Security, "gosec's type-checked analysis of the whole head tree (its taint rules follow request data through SSA to the sink) shows a weakness an attacker can use", "little: the safe form of the call is as short"},
}

// fixes say what to do about the findings of the go vet passes most likely to block a change;
// the other checks point at their documentation.
var fixes = map[string]string{
	"nilness":      "handle the nil case before the dereference (restore the guard if the change removed it)",
	"lostcancel":   "call the cancel function on every path (defer cancel() right after creating the context)",
	"copylocks":    "pass and store the value by pointer so that its lock is not copied",
	"httpresponse": "check the error before using the response (defer resp.Body.Close() after the check)",
	"loopclosure":  "pass the loop variable to the closure as an argument, or copy it inside the loop",
	"atomic":       "use the result of the atomic operation instead of assigning it back to the variable",
	"printf":       "make the format verbs match the arguments",
	"unusedresult": "use the result of the call",
	"errorsas":     "pass a pointer to a variable of the error type to errors.As",
	"unmarshal":    "pass a pointer to Unmarshal/Decode",
	"waitgroup":    "call WaitGroup.Add before starting the goroutine, not inside it",
}

// The type-checked checks join the rule catalog under their own names (e.g. "nilness", "SA5011").
func init() {
	for _, c := range Checks() {
		if _, taken := rules.Rules[c.Rule]; taken {
			panic(fmt.Sprintf("review: check %s collides with a hand-written rule", c.Rule))
		}
		w := topicWarrants[c.Topic]
		ref := c.Source + " " + c.Rule + ": " + c.URL
		rebuttal := "unless the path cannot be taken at run time"
		warrant, tradeOff := w.warrant, w.tradeOff
		switch c.Source {
		case rules.SourceDebatebot:
			// The project's own checks say why they matter themselves; the topic still picks
			// the stakeholder who argues them.
			ref = "debatebot " + c.Rule + ", " + c.CWE + ": " + c.URL
			warrant, rebuttal, tradeOff = c.Warrant, c.Rebuttal, c.TradeOff
		case rules.SourceGosec:
			ref = "gosec " + strings.TrimPrefix(c.Rule, "gosec:")
			if c.CWE != "" {
				ref += ", " + c.CWE
			}
			ref += ": " + c.URL
			rebuttal = "unless the value cannot come from an attacker, or is checked before it reaches the call"
		}
		rules.Rules[c.Rule] = rules.Rule{
			ID: c.Rule, Stakeholder: w.stakeholder, Severity: c.Severity,
			Title: c.Title, Warrant: warrant, Reference: ref,
			Fix:      fix(c),
			Rebuttal: rebuttal, TradeOff: tradeOff, CWE: c.CWE,
		}
	}
}

// typedFamilies are the families of go/analysis checks, by source, in the order their analyzers
// run: the go vet passes, staticcheck, the maintained Go linters, gosec, and debatebot's own
// passes with the comparison of protections in base and head.
var typedFamilies = []string{rules.AnalyzerGoVet, rules.AnalyzerStaticcheck, rules.AnalyzerGoLinter, rules.AnalyzerGosec, rules.AnalyzerDebatebot}

// typedAnalyzer is one family of the type-checked Go analysis as an analyzer of the registry: it
// reports the findings of its family's checks that are new in head. The families share one load
// of the change's whole base and head trees (typedLoad): the first of them to run loads,
// type-checks and analyses both trees once, with the checks of every family the gathering runs,
// and the others read what it found. The hand-written Go analyzer keeps running beside them.
type typedAnalyzer struct {
	source string
}

func (a typedAnalyzer) Name() string { return a.source }

func (a typedAnalyzer) Analyze(s *scan.Scan) {
	res := typedLoad(s)
	if res == nil {
		return
	}
	c := s.Change
	for _, f := range res.New {
		if f.Source != a.source {
			continue
		}
		msg := f.Message
		if f.Func != "" {
			msg += " (in " + f.Func + ")"
		}
		if !c.HasLine(f.Path, f.Line) {
			msg += "; new in head on a line the diff does not show: the change made it reachable"
		}
		c.Reach(f.Path, f.Line)
		f.Message = msg
		s.Record(f) // with its weakness (f.CWE), which absorbWeakness reads
	}
}

// typedLoad is the type-checked analysis of the scan's change, made once per scan (nil when the
// change has no Go file, no trees, or the analysis failed; a note says why).
func typedLoad(s *scan.Scan) *Result {
	res, _ := s.Shared("go/analysis", func() any { return analyzeTyped(s) }).(*Result)
	return res
}

// analyzeTyped runs the type-checked Go analysis over the change's whole base and head trees,
// when the change can materialise them (a git range), with the checks of the families the scan
// runs, and says what it did in a note.
func analyzeTyped(s *scan.Scan) *Result {
	c := s.Change
	if c.Trees == nil {
		return nil
	}
	var files []string
	for _, f := range c.Files {
		for _, p := range []string{f.Path, f.OldPath} {
			if strings.HasSuffix(p, ".go") && !slices.Contains(files, p) {
				files = append(files, p)
			}
		}
	}
	if len(files) == 0 {
		return nil
	}
	var sources []string
	for _, src := range typedFamilies {
		if s.Runs(src) {
			sources = append(sources, src)
		}
	}
	ctx := s.Context()
	base, head, err := s.Trees()
	if err != nil {
		s.Note("type-checked Go analysis skipped: " + scan.Clip(err.Error(), 300))
		return nil
	}
	tctx, cancel, budget := typedBudget(ctx)
	defer cancel()
	res, err := Run(tctx, Options{BaseDir: base, HeadDir: head, Files: files, Sources: sources})
	if err != nil {
		addUncovered(ctx, head, files)
	}
	if err != nil && ctx.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded) {
		s.Note(fmt.Sprintf("type-checked Go analysis stopped: it took longer than its share of the time for evidence (%s; compiling the dependencies takes longest the first time), so it reports nothing; the other analyzers' evidence stands", budget.Round(time.Second)))
		return nil
	}
	if err != nil {
		s.Note("type-checked Go analysis failed: " + scan.Clip(err.Error(), 300))
		return nil
	}
	addCoverage(ctx, res.Head)
	s.Note(typedGoNote(res, sources))
	return res
}

// typedShare is the share of the time left for evidence that the type-checked analysis may take,
// so that the analyzers after it still run when loading a large tree's dependencies is slow.
const typedShare = 2.0 / 3

// typedBudget is ctx with the type-checked analysis's deadline (none when ctx has none).
func typedBudget(ctx context.Context) (context.Context, context.CancelFunc, time.Duration) {
	d, ok := ctx.Deadline()
	if !ok {
		c, cancel := context.WithCancel(ctx)
		return c, cancel, 0
	}
	budget := time.Duration(float64(time.Until(d)) * typedShare)
	c, cancel := context.WithTimeout(ctx, budget)
	return c, cancel, budget
}

func fix(c rules.Check) string {
	if f, ok := fixes[c.Rule]; ok {
		return f
	}
	if c.Fix != "" {
		return c.Fix
	}
	return "fix what " + c.Source + " " + c.Rule + " reports: " + strings.ToLower(c.Title[:1]) + c.Title[1:] + " (" + c.URL + ")"
}

// familyWords name each family of checks in the analysis's note.
var familyWords = map[string]string{
	rules.AnalyzerGoVet:       "go vet passes",
	rules.AnalyzerStaticcheck: "staticcheck",
	rules.AnalyzerGoLinter:    "bodyclose, sqlclosecheck, rowserrcheck, noctx, errcheck, nilaway",
	rules.AnalyzerGosec:       "gosec",
	rules.AnalyzerDebatebot:   "debatebot's own analyzers and comparison of protections",
}

func typedGoNote(res *Result, sources []string) string {
	var b strings.Builder
	var ran []string
	for _, src := range sources {
		ran = append(ran, familyWords[src])
	}
	fmt.Fprintf(&b, "type-checked Go analysis (%s) of %d package(s) in base and head: %s; %d new finding(s), %d pre-existing finding(s) left out",
		strings.Join(ran, ", "), len(res.Packages), strings.Join(scan.LimitNames(res.Packages, 8), ", "), len(res.New), res.Preexisting)
	if len(res.Degraded) > 0 {
		var d []string
		for _, x := range res.Degraded {
			d = append(d, x.Package+" ("+scan.Clip(x.Reason, 160)+")")
		}
		fmt.Fprintf(&b, "; degraded: %s", strings.Join(scan.LimitNames(d, 5), "; "))
	}
	if len(res.Notes) > 0 {
		fmt.Fprintf(&b, "; %s", strings.Join(scan.LimitNames(scan.ClipAll(res.Notes, 300), 6), "; "))
	}
	return b.String()
}
