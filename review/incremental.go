package review

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// Comparer compares two commits of a pull request's repository.
type Comparer interface {
	// Compare is GitHub's comparison of head with base: its status ("ahead" when head descends
	// from base) and the files it changed, with their patches.
	Compare(ctx context.Context, pr PullRequest, base, head string) (string, []*github.CommitFile, error)
}

// ReadSince reads what changed on the pull request between an earlier debated head and the new
// one (the compare API). ok is false when the new head does not descend from the old one (a
// force push): the whole change must be debated again. After a force push GitHub may no longer
// know the old head, or find no common ancestor; it answers 404 then ("Not Found", "No common
// ancestor between ..."), which means the same: debate the whole change, not fail the job.
func ReadSince(ctx context.Context, gh Comparer, pr PullRequest, oldHead, newHead string) (c *change.Change, ok bool, err error) {
	status, files, err := gh.Compare(ctx, pr, oldHead, newHead)
	if er := (*github.ErrorResponse)(nil); errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
		zerolog.Ctx(ctx).Info().Str("old_head", oldHead).Str("new_head", newHead).Str("github_message", er.Message).
			Msg("GitHub cannot compare the debated head with the new one (a force push?); the whole change is debated.")
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("failed to compare %s...%s on %s: %w", render.ShortSHA(oldHead), render.ShortSHA(newHead), pr, err)
	}
	if status != "ahead" {
		return nil, false, nil
	}
	c, err = filesChange(files, fmt.Sprintf("%s %s...%s", pr, render.ShortSHA(oldHead), render.ShortSHA(newHead)))
	if err != nil {
		return nil, false, err
	}
	c.HeadSHA = newHead
	return c, len(c.Files) > 0, nil
}

// CarryForward marks each required change of the earlier decision resolved or still open by
// what changed since: a change tied to path:line is resolved when that line was changed or
// removed since; one whose file was deleted is resolved; everything else is still open.
func CarryForward(prev *voting.Record, since *change.Change) []toulmin.Carried {
	var out []toulmin.Carried
	for _, rc := range prev.RequiredChanges {
		text := strings.TrimSuffix(rc, " (still open)")
		item := toulmin.Carried{Text: text, From: prev.HeadSHA, Status: toulmin.StillOpen}
		if m := render.Citation.FindStringSubmatch(text); m != nil {
			line, _ := strconv.Atoi(m[2])
			if f := since.File(m[1]); f != nil {
				if f.Status == change.StatusDeleted || f.IsRemoved(line) {
					item.Status = toulmin.Resolved
				}
			}
		}
		out = append(out, item)
	}
	return out
}

// ApplyCarried adds the earlier decision's open required changes to the new record. A debate of
// what changed since cannot approve what it did not see: when nothing carried was resolved, the
// earlier decision stands (or the new one, if more cautious); when some were, the open ones still
// keep the change from a plain approval; `/debate` runs a full debate.
func ApplyCarried(t *toulmin.Transcript, prev *voting.Record, carried []toulmin.Carried) {
	t.Carried = carried
	open, resolved := 0, 0
	for _, c := range carried {
		if c.Status == toulmin.StillOpen {
			open++
			t.Record.RequiredChanges = append(t.Record.RequiredChanges, c.Text+" (still open)")
		} else {
			resolved++
		}
	}
	switch {
	case open > 0 && resolved == 0:
		t.Record.Decision = voting.MoreCautious(t.Record.Decision, prev.Decision)
	case open > 0:
		t.Record.Decision = voting.MoreCautious(t.Record.Decision, voting.ApproveWithChanges)
	}
}
