package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/dialectic"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
)

// AgentFactory builds the agents of one debate from the repository's stakeholders.
type AgentFactory func(repo *config.Repo) ([]toulmin.Agent, error)

// Runner holds a job's debate: it authorises commands, reads the repository's configuration from
// the base branch, reads the change, runs the debate and publishes it.
type Runner struct {
	Clients githubapp.ClientCreator
	// Store keeps checkpoints and decisions, so that a debate cut short resumes.
	Store *store.Store
	// Bot is the App's login, "<slug>[bot]".
	Bot     string
	Agents  AgentFactory
	Metrics *Metrics
	// Clock is time.Now except in tests.
	Clock func() time.Time
	// StopLocal stops a pull request's running debate on this replica at once (the queue's);
	// other replicas see the stop in the store.
	StopLocal func(pr review.PullRequest, cause error) bool
	// Trees, when set, gives review debates the whole trees of their pull request.
	Trees *Trees
	// Enqueue queues a job (the queue's): an answer at a checkpoint resumes its debate with it.
	Enqueue func(context.Context, *Job) (bool, string, error)
	// PublicURL is where users reach the dashboard (DEBATEBOT_PUBLIC_URL): the check run and
	// the comments link to the debate's page there. Empty, they link to the pull request.
	PublicURL string
	// Dialectic returns the agents of failure and planning debates (seed 000) for a repository;
	// nil, or a nil answer, means the rules (offline).
	Dialectic func(*config.Repo) dialectic.Agents
	// LogClient downloads CI job logs from where GitHub redirects (never with the installation
	// token); nil means a plain client with a timeout.
	LogClient *http.Client
	// Budget is each repository's budget where its debatebot.yml sets none.
	Budget RepoBudget
}

func (r *Runner) now() time.Time {
	if r.Clock != nil {
		return r.Clock()
	}
	return time.Now()
}

// Run implements RunFunc.
func (r *Runner) Run(ctx context.Context, job *Job) error {
	start := r.now()
	err := r.run(ctx, job)
	r.Metrics.job(job, err, time.Since(start))
	return err
}

func (r *Runner) run(ctx context.Context, job *Job) error {
	gh, err := r.Clients.NewInstallationClient(job.Installation)
	if err != nil {
		return fmt.Errorf("failed to create a client for installation %d: %w", job.Installation, err)
	}
	// Cheap checks first: a command whose author's answers are used up costs no request.
	if muted, err := r.muted(ctx, job); err != nil || muted {
		return err
	}
	pub := r.publisher(ctx, gh, job)
	switch job.Kind {
	case KindHumanReview:
		return r.humanReview(ctx, gh, pub, job)
	case KindHumanDecision:
		return r.humanDecision(ctx, gh, pub, job)
	case KindCheckpoint:
		return r.answerCheckpoint(ctx, gh, pub, job)
	case KindHelp:
		return r.help(ctx, gh, pub, job)
	case KindCI:
		return r.ciRun(ctx, gh, job)
	case KindPush:
		return r.pushed(ctx, gh, job)
	case KindFresh:
		return r.fresh(ctx, gh, pub, job)
	case KindPlan:
		return r.plan(ctx, gh, pub, job)
	case KindAlert:
		return r.alert(ctx, gh, job)
	}
	return r.reviewJob(ctx, gh, pub, job)
}

// TrustRate is how far one human decision moves an agent's trust toward its agreement.
const TrustRate = 0.3

// withTrust fills each stakeholder's trust from what human decisions taught in this repository,
// unless the configuration sets it; trust above 1.2 makes a stakeholder senior.
func (r *Runner) withTrust(ctx context.Context, repo *config.Repo, repository string) *config.Repo {
	if r.Store == nil {
		return repo
	}
	c := *repo
	c.Stakeholders = append([]agents.Perspective(nil), repo.Stakeholders...)
	for i := range c.Stakeholders {
		if c.Stakeholders[i].Trust != 0 {
			continue
		}
		if v, err := r.Store.Trust(ctx, repository, c.Stakeholders[i].Name); err == nil {
			c.Stakeholders[i].Trust = v
		}
	}
	return &c
}

// humanDecision records a human's decision. After /human-review, a maintainer's decision is
// final: it concludes the debate's check run (approve: success; request changes: failure), is
// written into the decision comment and record beside the debate's own decision, and removes
// the escalation label; each agent's trust in the repository moves toward its agreement with the
// human. A merge or close of a pull request whose debate was not escalated counts for the
// reversal rate.
func (r *Runner) humanDecision(ctx context.Context, gh *github.Client, pub *publish.Publisher, job *Job) error {
	if job.Requester != "" {
		have, err := Permission(ctx, gh, job.PR, job.Requester)
		if err != nil {
			return err
		}
		if !config.PermissionAtLeast(have, "maintain") {
			r.Metrics.refused("permission")
			return r.refuse(ctx, gh, pub, job, fmt.Sprintf("@%s: only maintainers decide after /human-review (you have %s). Nothing was recorded.", job.Requester, have))
		}
	}
	human := job.Protocol
	d, err := r.Store.PendingHumanDecision(ctx, job.PR.Repository(), job.PR.Number)
	if errors.Is(err, store.ErrNotFound) {
		if job.Requester != "" {
			return r.refuse(ctx, gh, pub, job, "No debate on this pull request waits for a human decision; comment `/human-review` first.")
		}
		if d, err := r.Store.LatestDecided(ctx, job.PR.Repository(), job.PR.Number); err == nil && d.HumanDecision == "" {
			return r.Store.SetHumanDecision(ctx, d.ID, human)
		}
		return nil
	}
	if err != nil {
		return err
	}
	var lines []string
	for _, v := range strings.Split(d.Votes, ",") {
		agent, vote, ok := strings.Cut(v, "=")
		if !ok {
			continue
		}
		before, err := r.Store.Trust(ctx, job.PR.Repository(), agent)
		if err != nil {
			return err
		}
		after, err := r.Store.LearnTrust(ctx, job.PR.Repository(), agent, store.Agrees(vote, human), TrustRate)
		if err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("- %s voted %s: trust %.2f → %.2f", agent, vote, before, after))
	}
	if err := r.finalise(ctx, pub, d.ID, human, job.Requester); err != nil {
		return err
	}
	if job.Requester == "" {
		return nil
	}
	return pub.Comment(ctx, fmt.Sprintf("Human decision on debate `%s`: **%s**. The agents learn from it:\n\n%s", d.ID, strings.ReplaceAll(human, "_", " "), strings.Join(lines, "\n")))
}

// finalise makes a human decision the debate's final word where users look: the record and the
// stored transcript carry it, the decision comment shows it, the check run concludes with it and
// the escalation label goes.
func (r *Runner) finalise(ctx context.Context, pub *publish.Publisher, id, human, by string) error {
	full, err := r.Store.Debate(ctx, id)
	if err != nil {
		return err
	}
	var t toulmin.Transcript
	if err := json.Unmarshal(full.Checkpoint, &t); err != nil || t.Record.DebateID == "" {
		// Nothing to show it in; the decision is recorded all the same.
		return r.Store.SetHumanDecision(ctx, id, human)
	}
	t.Record.HumanDecision = human
	rec, err := t.Record.YAML()
	if err != nil {
		return err
	}
	cp, err := json.Marshal(&t)
	if err != nil {
		return fmt.Errorf("failed to encode debate %s: %w", id, err)
	}
	if err := r.Store.RecordHumanDecision(ctx, id, human, rec, cp); err != nil {
		return err
	}
	dc, err := render.DecisionComment(&t)
	if err != nil {
		return err
	}
	if cid, err := r.Store.CheckRun(ctx, id); err == nil {
		pub.UseCheckRun(cid)
	}
	steps := []func() error{
		func() error { return pub.Upsert(ctx, render.DecisionMarker, dc) },
		func() error { return pub.Unlabel(ctx, publish.EscalationLabel) },
	}
	if t.Record.HeadSHA != "" {
		steps = append(steps, func() error { return pub.ConcludeHuman(ctx, t.Record.HeadSHA, human, by, &t) })
	}
	for _, step := range steps {
		if err := retry(ctx, 3, step); err != nil {
			return fmt.Errorf("failed to publish the human decision on debate %s: %w", id, err)
		}
	}
	return nil
}

// PublishMemo keeps, outside GitHub, what a publication did (the App's store): the check run it
// created and that it concluded it, and that the inline review was posted.
type PublishMemo interface {
	Publication(ctx context.Context, pr, marker string) (int64, error)
	SavePublication(ctx context.Context, pr, marker string, id int64) error
	SaveCheckRun(ctx context.Context, debateID string, id int64) error
}

// permitted checks a command's requester against the permission the command needs; a refusal is
// answered with one comment naming what was needed, what the requester has and outcome ("Nothing
// was changed."), and the command does nothing else.
func (r *Runner) permitted(ctx context.Context, gh *github.Client, pub *publish.Publisher, job *Job, need, command, outcome string) (bool, error) {
	have, err := Permission(ctx, gh, job.PR, job.Requester)
	if err != nil {
		return false, err
	}
	if config.PermissionAtLeast(have, need) {
		return true, nil
	}
	r.Metrics.refused("permission")
	return false, r.refuse(ctx, gh, pub, job, fmt.Sprintf("@%s: %s needs %s permission on this repository; you have %s. %s", job.Requester, command, need, have, outcome))
}

// authorise checks a command's requester against command_permission and the per-PR hourly
// bound (kept in the store, so that replicas and restarts share it); a refusal is answered with a
// short comment and nothing is spent.
func (r *Runner) authorise(ctx context.Context, gh *github.Client, pub *publish.Publisher, job *Job, repo *config.Repo) (bool, error) {
	have, err := Permission(ctx, gh, job.PR, job.Requester)
	if err != nil {
		return false, err
	}
	if !config.PermissionAtLeast(have, repo.CommandPermission) {
		r.Metrics.refused("permission")
		return false, r.refuse(ctx, gh, pub, job, fmt.Sprintf("@%s: debatebot commands need %s permission on this repository; you have %s. Nothing was started.", job.Requester, repo.CommandPermission, have))
	}
	if job.Kind == KindReview {
		ok, err := r.Store.StartCommand(ctx, job.PR.String(), jobKey(job), *repo.MaxDebatesPerHour, time.Hour)
		if err != nil {
			return false, err
		}
		if !ok {
			r.Metrics.refused("rate")
			return false, r.refuse(ctx, gh, pub, job, fmt.Sprintf("@%s: this pull request already had %d debates started by commands in the last hour (the limit is max_debates_per_hour). Try again later.", job.Requester, *repo.MaxDebatesPerHour))
		}
	}
	return true, nil
}

// humanReview holds /human-review: the commenter must have human_review_permission; then the
// pull request's debates are stopped through the store (the one running on any replica, and any
// still queued), or, when none runs, the last debate waits for a human decision.
func (r *Runner) humanReview(ctx context.Context, gh *github.Client, pub *publish.Publisher, job *Job) error {
	repo, err := r.commandConfig(ctx, gh, job)
	if err != nil {
		return err
	}
	if ok, err := r.permitted(ctx, gh, pub, job, repo.HumanReviewPermission, "/human-review", "Nothing was changed."); !ok {
		return err
	}
	// A debate paused at a checkpoint has no job running to stop: its job is enqueued again with
	// the rounds ended, and flagged below like a running one, so that it resumes already stopped
	// and publishes what was said for the human to decide.
	if p, err := r.Store.PausedDebate(ctx, job.PR.Repository(), job.PR.Number); err == nil {
		resume, t, err := r.pausedJob(ctx, p)
		if err != nil {
			return err
		}
		c := toulmin.Checkpoint{AfterRound: p.AfterRound, Action: toulmin.CheckpointEnd, Waited: r.now().Sub(p.At).Round(time.Millisecond),
			Note: "@" + job.Requester + " asked for human review"}
		if err := r.resume(ctx, pub, p, resume, t, c, job.DeliveryID); err != nil {
			return err
		}
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	n := 0
	for _, kind := range []Kind{KindReview, KindDesign} {
		k, err := r.Store.RequestCancel(ctx, job.PR.String(), string(kind), store.CancelHumanReview)
		if err != nil {
			return err
		}
		n += k
	}
	if n > 0 {
		if r.StopLocal != nil {
			r.StopLocal(job.PR, toulmin.ErrHumanReview)
		}
		zerolog.Ctx(ctx).Info().Int("debates", n).Msg("Stopping the pull request's debates for human review.")
		return pub.Comment(ctx, fmt.Sprintf("@%s asked for human review: the debate stops, what was said is published, and a human decides (`/human-review approve` or `/human-review request-changes`, by a maintainer).", job.Requester))
	}
	if d, err := r.Store.LatestDecided(ctx, job.PR.Repository(), job.PR.Number); err == nil && d.HumanDecision == "" {
		if err := r.Store.SetHumanDecision(ctx, d.ID, "pending"); err != nil {
			return err
		}
	}
	return pub.Comment(ctx, fmt.Sprintf("No debate is running on this pull request; @%s asked for human review, and a human decides (`/human-review approve` or `/human-review request-changes`, by a maintainer).", job.Requester))
}

// commandConfig reads the repository configuration a command is judged by, from the pull
// request's base branch (the default branch for an issue); a broken file means the defaults,
// so that a broken file cannot open commands to everyone.
func (r *Runner) commandConfig(ctx context.Context, gh *github.Client, job *Job) (*config.Repo, error) {
	ref := ""
	meta, _, err := gh.PullRequests.Get(ctx, job.PR.Owner, job.PR.Repo, job.PR.Number)
	var er *github.ErrorResponse
	switch {
	case err == nil:
		ref = meta.GetBase().GetRef()
	case errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound:
		// An issue, not a pull request.
	default:
		return nil, fmt.Errorf("failed to get pull request %s: %w", job.PR, err)
	}
	repo, err := LoadRepoConfig(ctx, gh, job.PR, ref)
	var ce *config.Error
	if errors.As(err, &ce) {
		return config.Default(), nil
	}
	return repo, err
}
