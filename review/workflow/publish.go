package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/review/pipeline"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/review/pull"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/google/go-github/v62/github"
)

// Command writes a GitHub Actions workflow command (::notice::, ::warning::, ::error::),
// its message redacted and escaped as the runner reads it (one line).
func Command(w io.Writer, kind, msg string) {
	msg = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(redact.Redact(msg))
	fmt.Fprintf(w, "::%s title=debatebot::%s\n", kind, msg)
}

// denied reports GitHub's refusal of a request the token has no permission for (403 "Resource
// not accessible by integration": the workflow token of a pull request from a fork, or a workflow
// without the permission), as opposed to a secondary rate limit, which is also a 403.
func denied(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusForbidden &&
		strings.Contains(er.Message, "not accessible")
}

// retryDenied is three tries with backoff, as the App makes, except for a refusal of the token's
// permission, which another try does not change.
func retryDenied(ctx context.Context, f func() error) error {
	var last error
	for i := 0; i < 3; i++ {
		if last = f(); last == nil || denied(last) {
			return last
		}
		select {
		case <-ctx.Done():
			return errors.Join(last, ctx.Err())
		case <-time.After(time.Duration(200<<i) * time.Millisecond):
		}
	}
	return last
}

// comment writes a comment unless the token may not; a refusal is a warning, not a failure of
// the run, which says the rest.
func (a *Action) comment(ctx context.Context, pub *publish.Publisher, write func() error) error {
	if err := write(); err != nil {
		if denied(err) {
			a.noComments = true
			a.notice("warning", "The token cannot comment on %s: %v", a.pr, err)
			return nil
		}
		return err
	}
	return nil
}

func (a *Action) redact(s string) string {
	return strings.ReplaceAll(redact.Redact(s), a.env.token, "***")
}

// summary appends the decision comment to the job summary (GITHUB_STEP_SUMMARY), with the whole
// transcript folded below it: the comment's link points to the run, whose summary it is, and
// when the debate could not be published on the pull request, it is where it is read.
func (a *Action) summary(t *toulmin.Transcript, published bool) {
	if a.env.summary == "" {
		return
	}
	dc, err := render.DecisionComment(t)
	if err != nil {
		a.notice("warning", "Could not write the job summary: %v", err)
		return
	}
	md, err := render.Markdown(t, render.Options{})
	if err != nil {
		a.notice("warning", "Could not write the job summary: %v", err)
		return
	}
	var b strings.Builder
	b.WriteString(dc)
	if !published {
		fmt.Fprintf(&b, "\n> Not published on %s: the token could not write there.\n", a.pr)
	}
	fmt.Fprintf(&b, "\n<details><summary>The whole debate</summary>\n\n%s\n</details>\n", md)
	// GitHub takes at most 1 MiB of summary per step.
	text := render.FitComment(a.redact(b.String()), 1<<20-1024, "")
	f, err := os.OpenFile(a.env.summary, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = io.WriteString(f, text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		a.notice("warning", "Could not write the job summary to GITHUB_STEP_SUMMARY: %v", err)
	}
}

// publisher publishes the debate as the App does, with the workflow token: the transcript and
// decision comments by marker, the check run with its annotations, the inline review, the
// escalation label; and, whatever the token may write, the job summary, a notice and the
// decision on stdout.
type publisher struct {
	a     *Action
	pub   *publish.Publisher
	head  string
	event string
	// noCheck is set when the token may not create check runs (a pull request from a fork).
	noCheck bool
	show    func(toulmin.Event)
}

// Start implements pipeline.Publisher: the check run.
func (p *publisher) Start(ctx context.Context, d *review.Debate) {
	if err := retryDenied(ctx, func() error { return p.pub.StartCheck(ctx, p.head) }); err != nil {
		if denied(err) {
			p.noCheck = true
			p.a.notice("notice", "The token cannot create check runs here (%v): the debate is published in comments only, without its check run and annotations. A pull request from a fork gets a read-only token; give the workflow `checks: write`.", err)
		} else {
			// Publishing creates it once GitHub answers again.
			p.a.notice("warning", "Could not create the check run: %v", err)
		}
	}
}

// Progress implements pipeline.Publisher: the transcript comment shows which phase runs, edited
// at most once per phase, until the token is refused a comment.
func (p *publisher) Progress(ctx context.Context, e toulmin.Event) {
	a := p.a
	if p.show == nil {
		p.show = p.pub.ShowProgress(ctx, func(err error) {
			if denied(err) {
				a.noComments = true
				a.notice("warning", "The token cannot comment on %s (%v): the debate is in the job summary only. A pull request from a fork gets a read-only token; use pull_request_target or give the workflow `pull-requests: write` and `issues: write`.", a.pr, err)
				return
			}
			a.notice("warning", "Could not show the debate's progress: %v", err)
		})
	}
	if !a.noComments {
		p.show(e)
	}
}

// Publish implements pipeline.Publisher: on the pull request unless the token may not write
// there, then in the job summary, a notice and the decision comment on stdout.
func (p *publisher) Publish(ctx context.Context, res *pipeline.Result) error {
	a, t := p.a, res.Transcript
	published := !a.noComments
	if published {
		scope := &publish.ReviewScope{Change: res.Subject.Change, Since: res.Subject.Since, Event: p.event}
		if err := p.pub.PublishDebate(ctx, t, publish.DebateOptions{Review: scope, NoCheck: p.noCheck}); err != nil {
			if !denied(err) {
				a.summary(t, false)
				return err
			}
			published = false
			a.notice("warning", "GitHub refused to publish the debate to the token (%v): it is in the job summary only.", err)
		}
	}
	a.summary(t, published)
	a.notice("notice", "%s: %s", a.pr, render.Summary(t))
	dc, err := render.DecisionComment(t)
	if err != nil {
		return err
	}
	_, err = io.WriteString(a.stdout, a.redact(dc))
	return err
}

// CannotDebate implements pipeline.Publisher: as the App does, why the change cannot be debated
// (binary-only, empty, every file ignored) in one comment and a neutral check run.
func (p *publisher) CannotDebate(ctx context.Context, ie *review.InputError) error {
	a, pub := p.a, p.pub
	msg := fmt.Sprintf("debatebot cannot debate this pull request: %v", ie.Problem)
	a.notice("notice", "%s", msg)
	if err := a.comment(ctx, pub, func() error {
		return retryDenied(ctx, func() error { return pub.Upsert(ctx, pull.CannotDebateMarker, msg) })
	}); err != nil {
		return err
	}
	if err := retryDenied(ctx, func() error { return pub.NeutralCheck(ctx, p.head, "Nothing to debate", msg) }); err != nil && !denied(err) {
		return err
	}
	return nil
}
