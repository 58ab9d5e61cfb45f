package publish

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
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

// Review posts the debate's inline review: one pull request review whose comments are the
// findings of substance on their lines, never one already on a line of the pull request (found
// by its marker), and whose body lists the findings without a line. A thread of the bot whose
// finding the debated change resolved is answered "resolved in `sha7`", once. A comment GitHub
// refuses (a line outside the diff) moves to the body; the review is never lost for it.
func (p *Publisher) Review(ctx context.Context, t *toulmin.Transcript, opts ReviewOptions) (ReviewResult, error) {
	var res ReviewResult
	if t.Record.HeadSHA == "" || t.Record.Synthesis != nil {
		return res, nil // a design debate: no lines to comment on
	}
	if t.Record.Decision != voting.RequestChanges {
		// A request for changes of an earlier debate would keep blocking the merge after a
		// debate that no longer asks for them.
		if err := p.dismissBlocking(ctx, t); err != nil {
			return res, err
		}
	}
	onLines, noLine := render.InlineFindings(t)
	threads, answered, err := p.reviewThreads(ctx)
	if err != nil {
		return res, err
	}
	p.inlined = map[string]bool{}
	for key := range threads {
		p.inlined[key] = true
	}
	fresh, current := newFindings(onLines, noLine, threads, &res)
	if opts.Change != nil {
		n, err := p.answerResolved(ctx, t, opts, threads, answered, current)
		res.Resolved = n
		if err != nil {
			return res, err
		}
	}
	reviewed := len(threads) > 0
	if len(fresh) == 0 && (reviewed || len(noLine) == 0) {
		return res, nil // nothing new to say on the lines; the summary comment has the rest
	}
	if opts.Change != nil && opts.Since == "" {
		// The debated change is the pull request's diff: a line outside its hunks would make
		// GitHub refuse the whole review (422), so such findings go to the body at once.
		fresh, noLine = byHunks(opts.Change, fresh, noLine)
		if len(fresh) == 0 && (reviewed || len(noLine) == 0) {
			return res, nil
		}
	}
	event := ReviewEventComment
	if opts.Event == ReviewEventRequestChanges && t.Record.Decision == voting.RequestChanges {
		event = ReviewEventRequestChanges
	}
	return p.postReview(ctx, t, event, fresh, noLine, opts.Link, res)
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

// postReview posts the review: fresh on their lines, noLine in its body. When GitHub refuses it
// (422) for a line outside the diff, the findings off the diff's lines move to the body and it
// is posted again.
func (p *Publisher) postReview(ctx context.Context, t *toulmin.Transcript, event string, fresh, noLine []render.InlineFinding, link string, res ReviewResult) (ReviewResult, error) {
	for attempt := 0; ; attempt++ {
		req := &github.PullRequestReviewRequest{CommitID: github.String(t.Record.HeadSHA), Event: github.String(event),
			Body: github.String(render.ReviewBody(t, fresh, noLine, link))}
		// The findings on one line are one comment.
		for _, c := range render.ByLine(fresh) {
			dc := &github.DraftReviewComment{Path: github.String(c.Path), Line: github.Int(c.Line),
				Side: github.String("RIGHT"), Body: github.String(c.Body())}
			if from, to, ok := c.SuggestedLines(); ok {
				dc.Line = github.Int(to) // the suggestion replaces from..to, which covers the findings' line
				if from < to {
					dc.StartLine, dc.StartSide = github.Int(from), github.String("RIGHT") // a multi-line suggestion
				}
			}
			req.Comments = append(req.Comments, dc)
		}
		_, _, err := p.gh.PullRequests.CreateReview(ctx, p.pr.Owner, p.pr.Repo, p.pr.Number, req)
		if err == nil {
			res.Posted, res.Body = len(fresh), len(noLine)
			for _, f := range fresh {
				p.inlined[f.Key] = true
			}
			return res, nil
		}
		var er *github.ErrorResponse
		if !errors.As(err, &er) || er.Response == nil || er.Response.StatusCode != http.StatusUnprocessableEntity || len(fresh) == 0 || attempt == 2 {
			return res, fmt.Errorf("failed to post the review of %s: %w", p.pr, err)
		}
		// GitHub refuses the whole review for one comment outside the diff and does not say
		// which: the lines of the diff tell; when they cannot be read, or GitHub refuses again,
		// every comment goes to the body.
		zerolog.Ctx(ctx).Warn().Err(err).Msg("GitHub refused a review comment on a line; moving what is outside the diff to the review's body.")
		keep := fresh[:0:0]
		if diff, lerr := review.ReadFiles(ctx, review.NewGitHub(p.gh), p.pr, ""); lerr == nil && attempt == 0 {
			keep, noLine = byHunks(diff, fresh, noLine)
		} else {
			noLine = append(noLine, fresh...)
		}
		res.Moved += len(fresh) - len(keep)
		fresh = keep
	}
}

// reviewThreads lists the review comments of the pull request, page by page: the bot's threads by
// the key of their finding, and the threads it already answered as resolved or as dismissed.
func (p *Publisher) reviewThreads(ctx context.Context) (map[string]thread, map[int64]bool, error) {
	threads, answered := map[string]thread{}, map[int64]bool{}
	opts := &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		comments, resp, err := p.gh.PullRequests.ListComments(ctx, p.pr.Owner, p.pr.Repo, p.pr.Number, opts)
		if err != nil {
			return nil, nil, fmt.Errorf("failed to list the review comments of %s: %w", p.pr, err)
		}
		for _, c := range comments {
			login := c.GetUser().GetLogin()
			if !strings.HasSuffix(login, "[bot]") || (p.Bot != "" && login != p.Bot) {
				continue // anyone can write a marker into a comment
			}
			if c.GetInReplyTo() != 0 {
				if resolvedRe.MatchString(c.GetBody()) || strings.Contains(c.GetBody(), render.DismissedMarker) {
					answered[c.GetInReplyTo()] = true
				}
				continue
			}
			// A comment carries the marker of each finding on its line.
			for _, m := range findingMarkerRe.FindAllStringSubmatch(c.GetBody(), -1) {
				if _, dup := threads[m[1]]; !dup {
					line := c.GetOriginalLine()
					if line == 0 {
						line = c.GetLine()
					}
					threads[m[1]] = thread{id: c.GetID(), path: c.GetPath(), line: line, commitID: c.GetOriginalCommitID()}
				}
			}
		}
		if resp.NextPage == 0 {
			return threads, answered, nil
		}
		opts.Page = resp.NextPage
	}
}

// answerResolved answers the bot's threads whose finding the debated change resolved. A debate of
// the whole pull request resolved every finding it no longer finds; a debate of what changed since
// an earlier head resolved those it no longer finds on lines it changed or removed (the others it
// did not look at again).
func (p *Publisher) answerResolved(ctx context.Context, t *toulmin.Transcript, opts ReviewOptions, threads map[string]thread, answered map[int64]bool, current map[string]bool) (int, error) {
	n := 0
	for key, th := range threads {
		if current[key] || answered[th.id] {
			continue
		}
		if opts.Since != "" {
			f := opts.Change.File(th.path)
			if f == nil || th.commitID != opts.Since || !(f.Status == change.StatusDeleted || f.IsRemoved(th.line)) {
				continue
			}
		}
		body := fmt.Sprintf("Resolved in `%s`: the finding is no longer there.\n\n<!-- debatebot:resolved %s -->", render.ShortSHA(t.Record.HeadSHA), key)
		u := fmt.Sprintf("repos/%s/%s/pulls/%d/comments/%d/replies", url.PathEscape(p.pr.Owner), url.PathEscape(p.pr.Repo), p.pr.Number, th.id)
		req, err := p.gh.NewRequest(http.MethodPost, u, map[string]string{"body": redact.Redact(body)})
		if err != nil {
			return n, fmt.Errorf("failed to answer review comment %d on %s: %w", th.id, p.pr, err)
		}
		if _, err := p.gh.Do(ctx, req, nil); err != nil {
			var er *github.ErrorResponse
			if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
				continue // deleted since it was listed
			}
			return n, fmt.Errorf("failed to answer review comment %d on %s: %w", th.id, p.pr, err)
		}
		answered[th.id] = true
		n++
	}
	return n, nil
}

// inHunks reports whether line of path is on the right side of one of the change's hunks: a line
// GitHub accepts a review comment on.
func inHunks(c *change.Change, path string, line int) bool {
	f := c.File(path)
	return f != nil && f.Shows(line)
}

// dismissBlocking dismisses the bot's reviews that request changes, once a debate of the pull
// request no longer does: a maintainer should not have to clear a block the bot itself lifted.
func (p *Publisher) dismissBlocking(ctx context.Context, t *toulmin.Transcript) error {
	opts := &github.ListOptions{PerPage: 100}
	var blocking []*github.PullRequestReview
	for {
		reviews, resp, err := p.gh.PullRequests.ListReviews(ctx, p.pr.Owner, p.pr.Repo, p.pr.Number, opts)
		if err != nil {
			return fmt.Errorf("failed to list the reviews of %s: %w", p.pr, err)
		}
		for _, r := range reviews {
			login := r.GetUser().GetLogin()
			if r.GetState() == "CHANGES_REQUESTED" && strings.HasSuffix(login, "[bot]") && (p.Bot == "" || login == p.Bot) {
				blocking = append(blocking, r)
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	for _, r := range blocking {
		msg := fmt.Sprintf("The debate of `%s` decided: %s; this request for changes no longer stands.", render.ShortSHA(t.Record.HeadSHA), render.DecisionTitle(t.Record.Decision))
		if _, _, err := p.gh.PullRequests.DismissReview(ctx, p.pr.Owner, p.pr.Repo, p.pr.Number, r.GetID(), &github.PullRequestReviewDismissalRequest{Message: github.String(msg)}); err != nil {
			return fmt.Errorf("failed to dismiss review %d of %s: %w", r.GetID(), p.pr, err)
		}
		zerolog.Ctx(ctx).Info().Int64("review_id", r.GetID()).Msg("Dismissed an earlier request for changes the debate no longer makes.")
	}
	return nil
}
