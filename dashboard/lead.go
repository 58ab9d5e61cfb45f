package dashboard

import (
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// maxFindings bounds the findings the debate page opens with; the others are counted.
const maxFindings = 100

// lead is what the debate page opens with, above the arguments: the decision in words, what it
// requires, and the findings the debate weighed, each with its line of code.
type lead struct {
	// Decision is the decision in words ("Changes requested"), and Tone how it reads: good,
	// fair or poor (the badge's colour, beside the words).
	Decision, Tone string
	// Progress is where an undecided debate is ("running · Rebuttals (round 2) done").
	Progress string
	// Required are the decision's required changes, each linked to the line it names.
	Required []required
	Findings []finding
	// More counts the findings beyond maxFindings.
	More int
}

// finding is one analyzer finding as the page shows it.
type finding struct {
	Severity, Rule, Message, Stakeholder string
	// Location is path:line, and Link the line on GitHub at the debated head ("" when the
	// repository, the head or the path cannot make one).
	Location, Link string
	Line           int
	// Excerpt is the cited head line, secrets redacted.
	Excerpt string
}

// required is one required change: its text, and the line it names ("path:line: text"),
// linked to GitHub at the debated head, with that line's code when a finding quoted it.
type required struct {
	Text, Location, Link, Excerpt string
	Line                          int
}

var located = regexp.MustCompile(`^([^\s:]+):(\d+): (.+)$`)

// requiredOf reads the record's required changes; a change that names a line is linked to it.
func (d *Dashboard) requiredOf(t *toulmin.Transcript, repo, head string) []required {
	snippets := map[string]string{}
	for _, e := range t.Evidence {
		if e.Snippet != "" && snippets[e.Location()] == "" {
			snippets[e.Location()] = e.Snippet
		}
	}
	var out []required
	for _, text := range t.Record.RequiredChanges {
		r := required{Text: text}
		if m := located.FindStringSubmatch(text); m != nil {
			line, _ := strconv.Atoi(m[2])
			if link := d.lineURL(repo, head, m[1], line); link != "" {
				r = required{Text: m[3], Location: m[1] + ":" + m[2], Link: link, Line: line}
				r.Excerpt = redact.Redact(strings.TrimRight(snippets[r.Location], "\r\n"))
			}
		}
		out = append(out, r)
	}
	return out
}

// decisionWords says a decision in words, and how it reads.
func decisionWords(o voting.Option) (string, string) {
	switch o {
	case voting.Approve:
		return "Approved", "good"
	case voting.ApproveWithChanges:
		return "Approved with changes", "fair"
	case voting.RequestChanges:
		return "Changes requested", "poor"
	case voting.Escalate:
		return "Escalated to a maintainer", "fair"
	}
	return string(o), ""
}

// leadOf builds the page's opening from the (redacted) transcript: the findings of the debated
// head, most severe first, linked to their lines on GitHub.
func (d *Dashboard) leadOf(t *toulmin.Transcript, repo, head, status string) lead {
	var l lead
	if t.Record.Decision != "" {
		l.Decision, l.Tone = decisionWords(t.Record.Decision)
		l.Required = d.requiredOf(t, repo, head)
	} else {
		var p toulmin.PhaseRecord
		if n := len(t.Timeline); n > 0 {
			p = t.Timeline[n-1]
		}
		l.Progress = phaseLabel(status, string(p.Phase), p.Round, 0, false)
	}
	var ev []toulmin.Evidence
	for _, e := range t.Evidence {
		if e.Mitigates == "" {
			ev = append(ev, e)
		}
	}
	slices.SortStableFunc(ev, func(a, b toulmin.Evidence) int {
		if a.Severity.Rank() != b.Severity.Rank() {
			return b.Severity.Rank() - a.Severity.Rank()
		}
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return a.Line - b.Line
	})
	if len(ev) > maxFindings {
		l.More, ev = len(ev)-maxFindings, ev[:maxFindings]
	}
	for _, e := range ev {
		l.Findings = append(l.Findings, finding{
			Severity: string(e.Severity), Rule: e.Rule, Message: redact.Redact(e.Message), Stakeholder: e.Stakeholder,
			Location: e.Location(), Line: e.Line, Excerpt: redact.Redact(strings.TrimRight(e.Snippet, "\r\n")),
			Link: d.lineURL(repo, head, e.Path, e.Line),
		})
	}
	return l
}

var (
	repoName = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)
	commit   = regexp.MustCompile(`^[0-9a-fA-F]{7,64}$`)
)

// lineURL is a line of a file on GitHub at a commit:
// {web}/{owner}/{repo}/blob/{sha}/{path}#L{line}, each path segment escaped; "" when the
// repository, the commit or the path is not one GitHub could show (a path that climbs out of
// the tree, a head that is not a commit id).
func (d *Dashboard) lineURL(repo, sha, path string, line int) string {
	if !repoName.MatchString(repo) || !commit.MatchString(sha) || path == "" || strings.HasPrefix(path, "/") {
		return ""
	}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if s == "" || s == "." || s == ".." {
			return ""
		}
		segs[i] = url.PathEscape(s)
	}
	u := d.webOrigin() + "/" + repo + "/blob/" + sha + "/" + strings.Join(segs, "/")
	if line > 0 {
		u += "#L" + strconv.Itoa(line)
	}
	return u
}

// phaseLabel says where a debate is: for a running one, the last phase it completed (or that
// it is starting); for a paused one, the round it waits after; for a queued one with phases
// behind it, where it resumes; otherwise its status.
func phaseLabel(status, phase string, round, pausedAfter int, pending bool) string {
	done := ""
	if k := toulmin.PhaseKind(phase); k.Valid() {
		done = k.Title()
		if round > 0 {
			done += " (round " + strconv.Itoa(round) + ")"
		}
	}
	switch {
	case status == store.StatusPaused && pausedAfter > 0:
		return "paused after round " + strconv.Itoa(pausedAfter)
	case status == store.StatusRunning && (pending || done == ""):
		return "running · starting"
	case status == store.StatusRunning:
		return "running · " + done + " done"
	case status == store.StatusQueued && done != "":
		return "queued · resumes after " + done
	}
	return status
}
