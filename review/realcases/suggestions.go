package realcases

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/debatebot/debatebot/review/render"
)

// writeSuggestions writes how many of the findings of substance carry a suggestion a review
// comment would offer (render.Suggestion), by the analyzer that found them, when there are
// findings.
func writeSuggestions(w io.Writer, results []Result) {
	total, with := 0, 0
	by := map[string]int{}
	for _, r := range results {
		for _, f := range r.Findings {
			total++
			if _, _, _, ok := render.Suggestion(f.Evidence); ok {
				with++
				by[f.Analyzer]++
			}
		}
	}
	if total == 0 {
		return
	}
	var parts []string
	for a, n := range by {
		parts = append(parts, fmt.Sprintf("%s %d", a, n))
	}
	sort.Strings(parts)
	list := ""
	if len(parts) > 0 {
		list = ": " + strings.Join(parts, ", ")
	}
	fmt.Fprintf(w, "  %-12s %d/%d findings carry a suggestion%s%s\n", "suggestions", with, total, pct(with, total), list)
}
