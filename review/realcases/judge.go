package realcases

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// CiteWithin is how far (in lines) a finding may be from a defect location and still find it.
const CiteWithin = 3

// Result is the judgement of one case's debate.
type Result struct {
	Case     Case
	Decision voting.Option
	// Found: a defect cited by a finding of substance, and a decision that is not approve.
	Found bool
	// Failed: a benign case held back (request_changes), or a run that failed.
	Failed bool
	// Cited are the rules of the findings of substance that cite a defect location.
	Cited []string
	// Findings are the debate's findings of substance, in the transcript's order.
	Findings []Finding
	// Err is why the run failed, if it did.
	Err error
	// TypesFull of TypesChanged changed Go packages were fully type-checked in head.
	TypesFull, TypesChanged int
	// Wall is how long the case's debate took; CPU the processor time (user and system, of the
	// process and the tools it ran) it used, which a busy machine does not inflate as it does Wall.
	Wall, CPU time.Duration
	// Sights say where the model's change message shows each defect location (bench --context).
	Sights []Sight
}

// Judge judges the debate of c (tr, or err when it did not run) as the benchmark's README says.
func Judge(c Case, tr *toulmin.Transcript, err error) Result {
	r := Result{Case: c, Err: err}
	if err != nil || tr == nil {
		r.Failed = true
		if r.Err == nil {
			r.Err = fmt.Errorf("the debate gave no decision")
		}
		return r
	}
	r.Decision = tr.Record.Decision
	for _, e := range tr.Evidence {
		if !substantive(e) {
			continue
		}
		f := Finding{Evidence: e, Defect: cites(c.Defects, e.Path, e.Line)}
		r.Findings = append(r.Findings, f)
		if f.Defect && !slices.Contains(r.Cited, e.Rule) {
			r.Cited = append(r.Cited, e.Rule)
		}
	}
	if !c.Defect() {
		r.Failed = r.Decision == voting.RequestChanges
		return r
	}
	r.Found = len(r.Cited) > 0 && r.Decision != voting.Approve
	return r
}

// substantive: an analyzer's finding, not a process note (tests, TODOs, dependencies, size,
// removed API, docs) and not a mitigation.
func substantive(e toulmin.Evidence) bool {
	return e.Mitigates == "" && e.Rule != rules.RuleMitigation && !rules.IsProcess(e.Rule)
}

func cites(locs []Location, path string, line int) bool {
	for _, l := range locs {
		if l.Path == path && line > 0 && line >= l.From-CiteWithin && line <= l.To+CiteWithin {
			return true
		}
	}
	return false
}

// Line is the result's line in the benchmark's listing.
func (r Result) Line() string {
	c := r.Case
	s := fmt.Sprintf("%-12s %-5s %-10s %-6s %-11s %-20s", c.ID, c.Split(), c.Lang, c.Kind, c.Class, r.Decision)
	switch {
	case r.Err != nil:
		s += " FAILED: " + oneLine(r.Err.Error(), 200)
	case c.Defect() && r.Found:
		s += " found (" + strings.Join(r.Cited, ", ") + ")"
	case c.Defect():
		s += " missed"
	case r.Failed:
		s += " FALSE ALARM"
	default:
		s += " ok"
	}
	if r.TypesChanged > 0 {
		s += fmt.Sprintf(" [types %d/%d]", r.TypesFull, r.TypesChanged)
	}
	if len(r.Sights) > 0 {
		s += sightLine(r.Sights)
	}
	switch {
	case r.Wall > 0 && r.CPU > 0:
		s += fmt.Sprintf(" [%.1fs, cpu %.1fs]", r.Wall.Seconds(), r.CPU.Seconds())
	case r.Wall > 0:
		s += fmt.Sprintf(" [%.1fs]", r.Wall.Seconds())
	}
	return s
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// tally counts one group's results.
type tally struct{ found, defects, failed, benign int }

func (t *tally) add(r Result) {
	if r.Case.Defect() {
		t.defects++
		if r.Found {
			t.found++
		}
		return
	}
	t.benign++
	if r.Failed {
		t.failed++
	}
}

func (t tally) String() string {
	return fmt.Sprintf("found %d/%d%s, benign failed %d/%d", t.found, t.defects, pct(t.found, t.defects), t.failed, t.benign)
}

func pct(a, b int) string {
	if b == 0 {
		return ""
	}
	return fmt.Sprintf(" (%.0f%%)", 100*float64(a)/float64(b))
}

// WriteTotals writes, for each split present (dev, check) and for all, the totals and the
// totals per language and per class.
func WriteTotals(w io.Writer, results []Result) error {
	splits := map[string][]Result{}
	for _, r := range results {
		splits[r.Case.Split()] = append(splits[r.Case.Split()], r)
	}
	groups := []struct {
		name    string
		results []Result
	}{{"dev", splits["dev"]}, {"check", splits["check"]}, {"all", results}}
	for _, g := range groups {
		if len(g.results) == 0 {
			continue
		}
		var total tally
		byLang, byClass := map[string]*tally{}, map[string]*tally{}
		for _, r := range g.results {
			total.add(r)
			addTo(byLang, r.Case.Lang, r)
			if r.Case.Defect() {
				addTo(byClass, r.Case.Class, r)
			}
		}
		if _, err := fmt.Fprintf(w, "%s: %d cases: %s\n", g.name, len(g.results), total); err != nil {
			return err
		}
		writeTypesAndTimes(w, g.results)
		writeSuggestions(w, g.results)
		writeSights(w, g.results)
		for _, lang := range Languages {
			if t := byLang[lang]; t != nil {
				fmt.Fprintf(w, "  %-12s %s\n", lang, t)
			}
		}
		for _, class := range Classes {
			if t := byClass[class]; t != nil {
				fmt.Fprintf(w, "  %-12s found %d/%d%s\n", class, t.found, t.defects, pct(t.found, t.defects))
			}
		}
	}
	return nil
}

// writeTypesAndTimes writes the share of the changed Go packages fully type-checked in head and
// the median and maximum wall and processor times per case, of all and of each language, when
// the results have them.
func writeTypesAndTimes(w io.Writer, results []Result) {
	var full, changed int
	for _, r := range results {
		full += r.TypesFull
		changed += r.TypesChanged
	}
	if changed > 0 {
		fmt.Fprintf(w, "  %-12s %d/%d changed Go packages fully type-checked%s\n", "types", full, changed, pct(full, changed))
	}
	if s := times(results); s != "" {
		fmt.Fprintf(w, "  %-12s %s\n", "time", s)
	}
	for _, lang := range Languages {
		var of []Result
		for _, r := range results {
			if r.Case.Lang == lang {
				of = append(of, r)
			}
		}
		if s := times(of); s != "" && len(of) < len(results) {
			fmt.Fprintf(w, "  %-12s %s\n", "time "+lang, s)
		}
	}
}

// times is "wall median Xs, max Ys; cpu median Zs, max Ws" over the results that were timed.
func times(results []Result) string {
	var walls, cpus []time.Duration
	for _, r := range results {
		if r.Wall > 0 {
			walls = append(walls, r.Wall)
		}
		if r.CPU > 0 {
			cpus = append(cpus, r.CPU)
		}
	}
	if len(walls) == 0 {
		return ""
	}
	s := "wall " + medianMax(walls)
	if len(cpus) > 0 {
		s += "; cpu " + medianMax(cpus)
	}
	return s
}

func medianMax(ds []time.Duration) string {
	slices.Sort(ds)
	med := ds[len(ds)/2]
	if len(ds)%2 == 0 {
		med = (ds[len(ds)/2-1] + ds[len(ds)/2]) / 2
	}
	return fmt.Sprintf("median %.1fs per case, max %.1fs", med.Seconds(), ds[len(ds)-1].Seconds())
}

func addTo(m map[string]*tally, key string, r Result) {
	if m[key] == nil {
		m[key] = &tally{}
	}
	m[key].add(r)
}
