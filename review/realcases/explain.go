package realcases

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// Finding is one finding of substance of a case's debate, as the benchmark explains it.
type Finding struct {
	// Evidence is the debate's finding: its analyzer, rule, severity and place.
	toulmin.Evidence
	// Defect: the finding cites one of the case's defect locations (within CiteWithin lines).
	Defect bool
}

// WriteExplain writes the result's findings of substance, one a line under the result's line:
// rule, analyzer, path:line and severity, the ones citing a defect marked "defect".
func WriteExplain(w io.Writer, r Result) error {
	for _, f := range r.Findings {
		mark := ""
		if f.Defect {
			mark = "  <- defect"
		}
		if _, err := fmt.Fprintf(w, "    %-8s %-32s %-10s %s%s\n", f.Severity, f.Rule, f.Analyzer, toulmin.Cite(f.Path, f.Line), mark); err != nil {
			return err
		}
	}
	return nil
}

// RuleStats is what one rule did over a run of the benchmark.
type RuleStats struct {
	Rule string
	// Analyzers are the analyzers that reported the rule.
	Analyzers []string
	// Found are the defect cases found with a finding of the rule at a defect line; Repos their
	// distinct repositories.
	Found, Repos []string
	// Cited are the defect cases where the rule cites a defect line, found or not (approved).
	Cited []string
	// OffDefect counts the rule's findings on defect cases away from every defect line.
	OffDefect int
	// Benign are the benign cases the rule fired on; Held those of them held back
	// (request_changes).
	Benign, Held []string
	// Total counts all the rule's findings of substance.
	Total int
}

// RuleTable counts, per rule, what its findings of substance did over results, ordered by the
// defects found (most first), then by rule.
func RuleTable(results []Result) []RuleStats {
	byRule := map[string]*RuleStats{}
	for _, r := range results {
		for _, f := range r.Findings {
			s := byRule[f.Rule]
			if s == nil {
				s = &RuleStats{Rule: f.Rule}
				byRule[f.Rule] = s
			}
			s.count(r, f)
		}
	}
	var out []RuleStats
	for _, s := range byRule {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b RuleStats) int {
		if d := len(b.Repos) - len(a.Repos); d != 0 {
			return d
		}
		if d := len(b.Found) - len(a.Found); d != 0 {
			return d
		}
		return strings.Compare(a.Rule, b.Rule)
	})
	return out
}

func (s *RuleStats) count(r Result, f Finding) {
	c := r.Case
	s.Total++
	s.Analyzers = addOnce(s.Analyzers, f.Analyzer)
	switch {
	case c.Defect() && f.Defect:
		s.Cited = addOnce(s.Cited, c.ID)
		if r.Found {
			s.Found = addOnce(s.Found, c.ID)
			s.Repos = addOnce(s.Repos, c.Repo)
		}
	case c.Defect():
		s.OffDefect++
	default:
		s.Benign = addOnce(s.Benign, c.ID)
		if r.Decision == voting.RequestChanges {
			s.Held = addOnce(s.Held, c.ID)
		}
	}
}

func addOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// WriteRuleTable writes RuleTable(results) as a table: per rule, the defect cases found with it
// and their repositories, the cases where it cites a defect line (found or not), its findings
// on defect cases away from the defect lines, the benign cases it fires on and how many of those
// were held back (request_changes), its total findings, and the analyzers that report it.
func WriteRuleTable(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "rule\tfound\trepos\tcited\toff-defect\tbenign\tbenign held\ttotal\tanalyzers\tfound in")
	for _, s := range RuleTable(results) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", s.Rule, len(s.Found), len(s.Repos), len(s.Cited),
			s.OffDefect, len(s.Benign), len(s.Held), s.Total, strings.Join(s.Analyzers, ","), strings.Join(s.Found, " "))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("failed to write the rule table: %w", err)
	}
	return nil
}
