package realcases

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/toulmin"
)

// Sight is where the change message every model call of a debate carries shows a defect
// location: among the diff's lines, only in the code around the change (codectx), or nowhere.
type Sight string

// The sights of a defect location.
const (
	InDiff Sight = "diff"
	InCode Sight = "code"
	Unseen Sight = "none"
)

// Sights reads what the model would be shown of c's change (agents.BuildContext with the
// default budget, after the evidence ev the gathering found) and says, for each defect location
// of the case, where it is shown: a location is seen when one of its lines is. It is what a
// model-backed debate reads of the defect, measured without a model.
func Sights(ctx context.Context, c Case, ch *change.Change, ev []toulmin.Evidence, tok *llm.Tokenizer) ([]Sight, error) {
	cc, err := agents.BuildContext(ctx, ch, ev, agents.DefaultContextTokens, tok)
	if err != nil {
		return nil, fmt.Errorf("building the model's view of %s: %w", c.ID, err)
	}
	diff, code := shownLines(cc.Text, diffFileRe, diffLineRe), shownLines(cc.Code, codeFileRe, codeLineRe)
	out := make([]Sight, 0, len(c.Defects))
	for _, l := range c.Defects {
		switch {
		case l.seenIn(diff):
			out = append(out, InDiff)
		case l.seenIn(code):
			out = append(out, InCode)
		default:
			out = append(out, Unseen)
		}
	}
	return out, nil
}

// The lines of the change message that name a file and a head line: the diff's file headers
// ("--- path (modified, +1 -2)", the path quoted when it has control characters) and its
// context and added lines ("  23  code", "  26 +code"; a removed line has no head number), and
// the code section's headers ("--- path:18-33 func f: changed here") and lines ("   18| code").
var (
	diffFileRe = regexp.MustCompile(`^--- (.+) \(\w+, \+\d+ -\d+\)$`)
	diffLineRe = regexp.MustCompile(`^ *(\d+) [ +]`)
	codeFileRe = regexp.MustCompile(`^--- (.+?):\d+-\d+ `)
	codeLineRe = regexp.MustCompile(`^ *(\d+)\| `)
)

// shownLines are the head lines text shows, by path: the numbered lines under each file header.
func shownLines(text string, fileRe, lineRe *regexp.Regexp) map[string]map[int]bool {
	out := map[string]map[int]bool{}
	var cur map[int]bool
	for _, line := range strings.Split(text, "\n") {
		if m := fileRe.FindStringSubmatch(line); m != nil {
			path := m[1]
			if p, err := strconv.Unquote(path); err == nil {
				path = p
			}
			if out[path] == nil {
				out[path] = map[int]bool{}
			}
			cur = out[path]
			continue
		}
		if m := lineRe.FindStringSubmatch(line); m != nil && cur != nil {
			n, _ := strconv.Atoi(m[1])
			cur[n] = true
		}
	}
	return out
}

// seenIn reports whether one of the location's lines is among shown.
func (l Location) seenIn(shown map[string]map[int]bool) bool {
	for n := l.From; n <= l.To; n++ {
		if shown[l.Path][n] {
			return true
		}
	}
	return false
}

// sightTally counts defect locations by sight, and the defect cases all of whose locations the
// model is shown.
type sightTally struct {
	diff, code, none, cases, whole int
}

func (t *sightTally) add(r Result) {
	if len(r.Sights) == 0 {
		return
	}
	t.cases++
	whole := true
	for _, s := range r.Sights {
		switch s {
		case InDiff:
			t.diff++
		case InCode:
			t.code++
		default:
			t.none++
			whole = false
		}
	}
	if whole {
		t.whole++
	}
}

func (t sightTally) String() string {
	all := t.diff + t.code + t.none
	return fmt.Sprintf("%d defect locations: %d in the diff, %d more only in the code around it, %d not shown%s; every location shown in %d/%d cases%s",
		all, t.diff, t.code, t.none, pct(t.none, all), t.whole, t.cases, pct(t.whole, t.cases))
}

// writeSights writes the sights of the results that have them, of all and per language.
func writeSights(w io.Writer, results []Result) {
	var total sightTally
	byLang := map[string]*sightTally{}
	for _, r := range results {
		total.add(r)
		if byLang[r.Case.Lang] == nil {
			byLang[r.Case.Lang] = &sightTally{}
		}
		byLang[r.Case.Lang].add(r)
	}
	if total.cases == 0 {
		return
	}
	fmt.Fprintf(w, "  %-12s %s\n", "sight", total)
	for _, lang := range Languages {
		if t := byLang[lang]; t != nil && t.cases > 0 {
			fmt.Fprintf(w, "  %-12s %s\n", "sight "+lang, t)
		}
	}
}

// sightLine is the case line's note of its sights: how many defect locations are shown where.
func sightLine(ss []Sight) string {
	n := map[Sight]int{}
	for _, s := range ss {
		n[s]++
	}
	return fmt.Sprintf(" [sight: diff %d, code %d, none %d]", n[InDiff], n[InCode], n[Unseen])
}
