package publish

import (
	"regexp"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/render"
)

// Review events the bot posts its inline review with (debatebot.yml's review_event).
const (
	ReviewEventComment        = "COMMENT"
	ReviewEventRequestChanges = "REQUEST_CHANGES"
)

// findingMarkerRe finds the hidden marker of a review comment of the bot, and resolvedRe the
// marker of its answer that a thread's finding was resolved.
var (
	findingMarkerRe = regexp.MustCompile(`<!-- debatebot:finding ([0-9a-f]{16}:\d+) -->`)
	resolvedRe      = regexp.MustCompile(`<!-- debatebot:resolved ([0-9a-f]{16}:\d+) -->`)
)

// ReviewOptions say how the inline review is posted.
type ReviewOptions struct {
	// Event is ReviewEventComment (the default) or ReviewEventRequestChanges; the latter is used
	// only when the debate decided to request changes.
	Event string
	// Change is the change the debate covered and Since the head it was compared with (empty
	// when it covered the whole pull request): a thread of the bot's whose finding the change
	// resolved is answered. Without a change (a debate published from the store) no thread is.
	Change *change.Change
	Since  string
	// Link is the summary's link in the review's body.
	Link string
}

// ReviewResult counts what a review did.
type ReviewResult struct {
	// Posted are the comments posted on lines, Repeated the findings already commented on (not
	// posted again), Body those listed in the review's body, Resolved the threads answered.
	Posted, Repeated, Body, Resolved int
	// Moved are the findings GitHub refused on their lines (outside the diff), moved to the body.
	Moved int
}

// thread is a review comment of the bot that carries a finding's marker.
type thread struct {
	id       int64
	path     string
	line     int
	commitID string
}

// newFindings are the findings on lines that no thread of the bot carries yet (those that one
// does are counted in res.Repeated), and the keys of every finding the debate stands by.
func newFindings(onLines, noLine []render.InlineFinding, threads map[string]thread, res *ReviewResult) ([]render.InlineFinding, map[string]bool) {
	var fresh []render.InlineFinding
	current := map[string]bool{}
	for _, f := range onLines {
		current[f.Key] = true
		if _, ok := threads[f.Key]; ok {
			res.Repeated++
			continue
		}
		fresh = append(fresh, f)
	}
	for _, f := range noLine {
		current[f.Key] = true
	}
	return fresh, current
}

// byHunks keeps the findings on a line of c's hunks and moves the others to noLine.
func byHunks(c *change.Change, fresh, noLine []render.InlineFinding) (keep, _ []render.InlineFinding) {
	keep = fresh[:0:0]
	for _, f := range fresh {
		if inHunks(c, f.Path, f.Line) {
			keep = append(keep, f)
		} else {
			noLine = append(noLine, f)
		}
	}
	return keep, noLine
}

// inHunks reports whether line of path is on the right side of one of the change's hunks: a line
// GitHub accepts a review comment on.
func inHunks(c *change.Change, path string, line int) bool {
	f := c.File(path)
	return f != nil && f.Shows(line)
}
