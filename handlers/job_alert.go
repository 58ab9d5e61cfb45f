package handlers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/review/pull"
	"github.com/debatebot/debatebot/store"
)

// Alert is a security alert a job carries: on a pull request's head (the pull request's debate
// runs again with it as evidence), or on the default branch (an issue is opened for it when
// debatebot.yml says alerts: issue, and debated).
type Alert struct {
	evidence.Alert
	DefaultBranch bool `json:",omitempty"`
	// Closed is how a default-branch alert ended ("fixed", "dismissed", ...): the issue opened
	// for it is closed once every alert of its group ended.
	Closed string `json:",omitempty"`
	// Visibility is the repository's as the delivery said it ("private", "public",
	// "internal"), empty when it did not: an issue is opened only in a private repository.
	Visibility string `json:",omitempty"`
	// Group names the alerts that share one issue: the tool and rule of a code scanning alert,
	// the ecosystem and package of a Dependabot alert.
	Group string `json:",omitempty"`
}

// visibilityOf is a repository's visibility from its visibility and private fields, empty when
// they do not settle it (private without a visibility may be internal).
func visibilityOf(visibility string, private *bool) string {
	switch {
	case visibility != "":
		return strings.ToLower(visibility)
	case private != nil && !*private:
		return "public"
	}
	return ""
}

// alertGitHub is what filing default-branch alerts in issues needs of GitHub: the repository's
// configuration and visibility, and its issues, read, edited, opened and closed. issueGitHub
// implements it over the API.
type alertGitHub interface {
	pull.ConfigReader
	// Repository is the repository (its visibility).
	Repository(ctx context.Context, pr review.PullRequest) (*github.Repository, error)
	// Issue is an issue of the repository: its state and body.
	Issue(ctx context.Context, pr review.PullRequest, number int) (*github.Issue, error)
	// EditIssueBody replaces an issue's body.
	EditIssueBody(ctx context.Context, pr review.PullRequest, number int, body string) error
	// CreateIssue opens an issue and returns its number.
	CreateIssue(ctx context.Context, pr review.PullRequest, title, body string) (int, error)
	// CloseIssue comments on an issue (the comment that starts with marker, edited when it
	// exists) and closes it as reason ("completed", "not_planned").
	CloseIssue(ctx context.Context, pr review.PullRequest, number int, marker, comment, reason string) error
}

// issueGitHub is alertGitHub over the API: reads and body edits through review.GitHub, new
// issues and their closing through the publisher (its transport redacts what is posted); the
// closing comment and the closing are each retried as a publication is.
type issueGitHub struct {
	*review.GitHub
	gh *github.Client
}

func newIssueGitHub(gh *github.Client) issueGitHub { return issueGitHub{review.NewGitHub(gh), gh} }

// CreateIssue opens the issue through the publisher.
func (g issueGitHub) CreateIssue(ctx context.Context, pr review.PullRequest, title, body string) (int, error) {
	return publish.NewPublisher(g.gh, pr).CreateIssue(ctx, title, body)
}

// CloseIssue comments and closes through the publisher, each step retried.
func (g issueGitHub) CloseIssue(ctx context.Context, pr review.PullRequest, number int, marker, comment, reason string) error {
	pub := publish.NewPublisher(g.gh, review.PullRequest{Owner: pr.Owner, Repo: pr.Repo, Number: number})
	if err := publish.Retry(ctx, 3, func() error { return pub.Upsert(ctx, marker, comment) }); err != nil {
		return err
	}
	return publish.Retry(ctx, 3, func() error { return pub.CloseIssue(ctx, reason) })
}

// AlertMarker names the issue opened for an alert on the default branch (kept in the store's
// publications of the repository).
func AlertMarker(a *Alert) string { return fmt.Sprintf("alert-%s-%d", a.Kind, a.Number) }

// alert holds a default-branch alert: with alerts: issue in debatebot.yml (read from the
// default branch), and only in a private repository, the alert is filed in the issue of its
// group (its rule or package), opened for the group's first alert and debated as a design
// question with the alert as evidence and the security stakeholder seated. At most
// max_alert_issues such issues are open at once.
func (r *Runner) alert(ctx context.Context, gh alertGitHub, job *Job) error {
	if job.Alert == nil || !job.Alert.DefaultBranch {
		return errors.New("an alert job without a default-branch alert")
	}
	unlock := alertLocks.lock(job.PR.Repository())
	defer unlock()
	if job.Alert.Closed != "" {
		return r.alertClosed(ctx, gh, job)
	}
	repo, err := pull.LoadRepoConfig(ctx, gh, job.PR, "")
	var ce *config.Error
	if errors.As(err, &ce) {
		zerolog.Ctx(ctx).Warn().Err(err).Msg("The repository configuration is broken; the alert is not debated.")
		return nil
	}
	if err != nil {
		return err
	}
	if repo.Alerts != "issue" {
		return nil
	}
	if visibility := r.repoVisibility(ctx, gh, job); visibility != "private" {
		r.withholdAlert(ctx, job, "public_repository", fmt.Sprintf("the repository is %s: an issue would publish what GitHub shows only to maintainers", visibility))
		return nil
	}
	return r.fileAlert(ctx, gh, job, *repo.MaxAlertIssues)
}

// repoVisibility is the repository's visibility: the delivery's, else the API's; "unknown"
// when neither says, which is not private.
func (r *Runner) repoVisibility(ctx context.Context, gh alertGitHub, job *Job) string {
	if v := job.Alert.Visibility; v != "" {
		return v
	}
	repo, err := gh.Repository(ctx, job.PR)
	if err != nil {
		zerolog.Ctx(ctx).Warn().Err(err).Msg("GitHub did not say whether the repository is private; it is taken as public.")
		return "unknown"
	}
	if v := visibilityOf(repo.GetVisibility(), repo.Private); v != "" {
		return v
	}
	if repo.GetPrivate() {
		return "private"
	}
	return "unknown"
}

// withholdAlert opens no issue for an alert: it says why in the log, the metrics and the store.
func (r *Runner) withholdAlert(ctx context.Context, job *Job, reason, why string) {
	zerolog.Ctx(ctx).Warn().Str("alert", AlertMarker(job.Alert)).Str("group", alertGroup(job.Alert)).Str("reason", reason).
		Msgf("No issue is opened for the security alert: %s.", why)
	r.Metrics.alertWithheld(reason)
	code := int64(alertWithheldCap)
	if reason == "public_repository" {
		code = alertWithheldPublic
	}
	if err := r.Store.SavePublication(ctx, job.PR.Repository()+"#alerts-withheld", AlertMarker(job.Alert), code); err != nil {
		zerolog.Ctx(ctx).Warn().Err(err).Msg("The withheld alert was not recorded.")
	}
}

// fileAlert files a private repository's alert in its group's issue: the issue it is in
// already (a redelivery, a reopened alert), else the group's open issue, else a new one,
// debated, when a slot is free.
func (r *Runner) fileAlert(ctx context.Context, gh alertGitHub, job *Job, limit int) error {
	a, repo := job.Alert, job.PR.Repository()
	member := AlertMarker(a)
	n, err := r.Store.Publication(ctx, alertsKey(repo), member)
	switch {
	case err == nil && n > 0:
		if cur, err := r.Store.Publication(ctx, alertsKey(repo), alertGroupMarker(a)); err == nil && cur == n {
			if err := r.Store.SavePublication(ctx, alertIssueKey(repo, n), member, alertOpen); err != nil {
				return err
			}
			return r.alertChecklist(ctx, gh, job.PR, n, a, "")
		}
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return err
	}
	number, opened, err := r.groupIssue(ctx, gh, job, limit)
	if err != nil || number == 0 {
		return err
	}
	if err := r.Store.SavePublication(ctx, alertIssueKey(repo, number), member, alertOpen); err != nil {
		return err
	}
	if err := r.Store.SavePublication(ctx, alertsKey(repo), member, number); err != nil {
		return err
	}
	if !opened {
		return r.alertChecklist(ctx, gh, job.PR, number, a, "")
	}
	_, _, err = r.Enqueue(ctx, &Job{DeliveryID: "alert-issue/" + job.DeliveryID, Trigger: job.Trigger, Kind: KindDesign, Installation: job.Installation,
		PR: review.PullRequest{Owner: job.PR.Owner, Repo: job.PR.Repo, Number: int(number)}, Title: "Security alert: " + a.Summary(),
		Body: "How should the repository answer this alert: fix, upgrade, or dismiss with a reason?", Alert: job.Alert})
	return err
}

// alertClosed ticks a fixed or dismissed alert off its issue's list, and closes the issue with
// a comment saying why when no alert of it is left open (as completed when any was fixed, not
// planned when all were dismissed); an alert that had no issue costs no request.
func (r *Runner) alertClosed(ctx context.Context, gh alertGitHub, job *Job) error {
	a, repo := job.Alert, job.PR.Repository()
	number, err := r.Store.Publication(ctx, alertsKey(repo), AlertMarker(a))
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	members, err := r.tickAlert(ctx, gh, job, number)
	if err != nil {
		return err
	}
	reason := closingActions[a.Closed]
	for _, v := range members {
		if v == alertOpen {
			return nil
		}
		if v == alertFixed {
			reason = "completed"
		}
	}
	return r.closeAlertIssue(ctx, gh, job, number, len(members), reason)
}

// tickAlert records the job's alert as ended among the alerts of issue number, and ticks it off
// the issue's list when it is one of them; it returns the state of every alert of the issue.
func (r *Runner) tickAlert(ctx context.Context, gh alertGitHub, job *Job, number int64) (map[string]int64, error) {
	a, repo := job.Alert, job.PR.Repository()
	members, err := r.Store.Publications(ctx, alertIssueKey(repo, number))
	if err != nil {
		return nil, err
	}
	state := int64(alertFixed)
	if closingActions[a.Closed] == "not_planned" {
		state = alertDismissed
	}
	if _, tracked := members[AlertMarker(a)]; tracked {
		members[AlertMarker(a)] = state
		if err := r.Store.SavePublication(ctx, alertIssueKey(repo, number), AlertMarker(a), state); err != nil {
			return nil, err
		}
		if err := r.alertChecklist(ctx, gh, job.PR, number, a, a.Closed); err != nil {
			return nil, err
		}
	}
	return members, nil
}

// closeAlertIssue closes issue number, whose last open alert the job's ended (of members
// alerts), with a comment saying why, as reason ("completed", "not_planned"), and frees its slot
// and group.
func (r *Runner) closeAlertIssue(ctx context.Context, gh alertGitHub, job *Job, number int64, members int, reason string) error {
	a := job.Alert
	note := fmt.Sprintf("GitHub reports the alert %s (`%s`), so this issue is closed as %s.", strings.ReplaceAll(a.Closed, "_", " "), job.Trigger, strings.ReplaceAll(reason, "_", " "))
	if members > 1 {
		note = fmt.Sprintf("GitHub reports %s alert #%d %s (`%s`), the last of this issue's alerts still open, so this issue is closed as %s.", a.Tool, a.Number, strings.ReplaceAll(a.Closed, "_", " "), job.Trigger, strings.ReplaceAll(reason, "_", " "))
	}
	marker := "<!-- debatebot:" + AlertMarker(a) + "-closed -->"
	if err := gh.CloseIssue(ctx, job.PR, int(number), marker, note, reason); err != nil {
		return err
	}
	return r.forgetAlertIssue(ctx, job.PR.Repository(), number)
}
