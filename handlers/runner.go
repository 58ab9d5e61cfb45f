package handlers

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/palantir/go-githubapp/githubapp"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/dialectic"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/llm"
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
	// ReplyModel returns the model that answers questions in the threads of review comments, for
	// a repository; nil, or a nil answer, means the offline answer.
	ReplyModel func(*config.Repo) *llm.Client
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

// run holds a job by its kind, each in its own file (job_<kind>.go; review_job.go for reviews
// and design debates), after the checks every kind shares.
func (r *Runner) run(ctx context.Context, job *Job) error {
	gh, err := r.Clients.NewInstallationClient(job.Installation)
	if err != nil {
		return fmt.Errorf("failed to create a client for installation %d: %w", job.Installation, err)
	}
	// Cheap checks first: a command (or a reply in a finding's thread) whose author's answers of
	// that family are used up costs no request.
	if muted, err := r.muted(ctx, job); err != nil || muted {
		return err
	}
	pub, api := r.publisher(ctx, gh, job), review.NewGitHub(gh)
	switch job.Kind {
	case KindHumanReview:
		return r.humanReview(ctx, api, pub, job)
	case KindHumanDecision:
		return r.humanDecision(ctx, api, pub, job)
	case KindCheckpoint:
		return r.answerCheckpoint(ctx, api, pub, job)
	case KindHelp:
		return r.help(ctx, api, pub, job)
	case KindCI:
		return r.ciRun(ctx, gh, job)
	case KindPush:
		return r.pushed(ctx, review.NewGitHub(gh), job)
	case KindFresh:
		return r.fresh(ctx, api, pub, job)
	case KindPlan:
		return r.plan(ctx, api, pub, job)
	case KindAlert:
		return r.alert(ctx, newIssueGitHub(gh), job)
	case KindReply:
		return r.reply(ctx, gh, job)
	}
	return r.reviewJob(ctx, api, pub, job)
}
