package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/dialectic"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/review/pull"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/store"
)

// CIRun is a completed workflow run or check run, as a KindCI job carries it.
type CIRun struct {
	// Source is "workflow_run" or "check_run".
	Source string
	ID     int64
	// Attempt is the run's attempt (a re-run of a workflow is another attempt of the same run).
	Attempt    int
	Name       string
	Conclusion string
	At         time.Time
	// Title and Summary are a check run's output, for a check without annotations (untrusted).
	Title, Summary string
}

// Failed reports whether the run failed; Passed whether it succeeded. Anything else (cancelled,
// skipped, neutral, stale, action_required) says nothing about the task.
func (c *CIRun) Failed() bool {
	return c.Conclusion == "failure" || c.Conclusion == "timed_out" || c.Conclusion == "startup_failure"
}

// Passed reports whether the run succeeded.
func (c *CIRun) Passed() bool { return c.Conclusion == "success" }

// ciRun holds a KindCI job on every open pull request whose head the run ran on.
func (r *Runner) ciRun(ctx context.Context, gh *github.Client, job *Job) error {
	if job.CI == nil {
		return errors.New("a CI job without its run")
	}
	if job.CI.Passed() && job.PR.Number > 0 {
		// Most runs pass on pull requests whose task never failed: nothing to reset, and no
		// request to make.
		_, taskID := ciTask(job.CI, job.PR)
		if _, err := r.Store.FailureTaskOf(ctx, job.PR.String(), taskID); errors.Is(err, store.ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
	}
	api := review.NewGitHub(gh)
	prs, err := r.headPullRequests(ctx, api, job)
	if err != nil {
		return err
	}
	// The run's failure is the same on every pull request: it is read once, when the first of
	// them records it (or holds its debate), and not at all when none does.
	var detail *failureDetail
	read := func(ctx context.Context) failureDetail {
		if detail == nil {
			d := r.readFailure(ctx, api, job.PR, job.CI)
			detail = &d
		}
		return *detail
	}
	var errs []error
	for _, meta := range prs {
		pr := review.PullRequest{Owner: job.PR.Owner, Repo: job.PR.Repo, Number: meta.GetNumber()}
		log := zerolog.Ctx(ctx).With().Int("pr_number", pr.Number).Str("task", job.CI.Name).Logger()
		if err := r.ciResult(log.WithContext(ctx), api, r.publisher(ctx, gh, &Job{PR: pr}), job, pr, meta, read); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// headPulls is what finding the pull requests of a run's commit needs of GitHub (review.GitHub
// implements it).
type headPulls interface {
	pullMeta
	// PullRequestsWithCommit is one page (0 is the first) of the pull requests GitHub associates
	// with a commit, with the next page, 0 after the last.
	PullRequestsWithCommit(ctx context.Context, pr review.PullRequest, sha string, page int) ([]*github.PullRequest, int, error)
}

// headPullRequests are the open pull requests whose head is the job's commit: the one the
// delivery named, read from GitHub, or those GitHub lists for the commit, as it lists them (with
// their state, head and base).
func (r *Runner) headPullRequests(ctx context.Context, gh headPulls, job *Job) ([]*github.PullRequest, error) {
	// A run of an older head, or of a closed pull request, is no failure of the change under review.
	current := func(p *github.PullRequest) bool { return p.GetState() == "open" && p.GetHead().GetSHA() == job.HeadSHA }
	if job.PR.Number > 0 {
		meta, err := gh.PullRequest(ctx, job.PR)
		if err != nil {
			return nil, fmt.Errorf("failed to get pull request %s/%s#%d: %w", job.PR.Owner, job.PR.Repo, job.PR.Number, err)
		}
		if !current(meta) {
			return nil, nil
		}
		return []*github.PullRequest{meta}, nil
	}
	var out []*github.PullRequest
	for page, pages := 0, 0; pages < 5; pages++ {
		list, next, err := gh.PullRequestsWithCommit(ctx, job.PR, job.HeadSHA, page)
		if err != nil {
			var er *github.ErrorResponse
			if errors.As(err, &er) && er.Response != nil && (er.Response.StatusCode == http.StatusNotFound || er.Response.StatusCode == http.StatusUnprocessableEntity) {
				return nil, nil // a commit GitHub no longer has: nothing to record
			}
			return nil, fmt.Errorf("failed to list the pull requests of %s@%s: %w", job.PR.Repository(), render.ShortSHA(job.HeadSHA), err)
		}
		for _, p := range list {
			// Only this repository's pull requests (GitHub names the base repository of each).
			if base := p.GetBase().GetRepo().GetFullName(); base != "" && !strings.EqualFold(base, job.PR.Repository()) {
				continue
			}
			if current(p) {
				out = append(out, p)
			}
		}
		if next == 0 {
			break
		}
		page = next
	}
	return out, nil
}

// failureReads is what acting on a run's result reads of GitHub (review.GitHub implements it):
// the configuration of the pull request's base branch, and what changed between two failing heads.
type failureReads interface {
	pull.ConfigReader
	review.Comparer
}

// ciTask is the task a run is an attempt at: the workflow's or check's name on the pull request.
func ciTask(run *CIRun, pr review.PullRequest) (text, id string) {
	text = fmt.Sprintf("%s on %s", run.Name, pr)
	return text, dialectic.TaskID(text)
}

// ciResult records one run's result on one pull request and acts on the task's streak: a
// success resets it; the second consecutive failure with the same fingerprint holds a failure
// debate; a failure after the debate (its one more attempt spent) escalates without another.
// read reads the run's failure (once for all the pull requests of the run); pub publishes on pr.
func (r *Runner) ciResult(ctx context.Context, gh failureReads, pub *publish.Publisher, job *Job, pr review.PullRequest, meta *github.PullRequest, read func(context.Context) failureDetail) error {
	repo, ok, err := failureConfig(ctx, gh, pr, meta)
	if err != nil || !ok {
		return err
	}
	run := job.CI
	if run.Passed() {
		return r.ciPassed(ctx, pub, job, pr)
	}
	runKey := fmt.Sprintf("%s/%d/%d@%s", run.Source, run.ID, run.Attempt, pr)
	if f, err := r.Store.FailureByKey(ctx, runKey); err == nil {
		return r.resumeFailure(ctx, gh, pub, repo, pr, f, read)
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	detail := read(ctx)
	f := r.failureOf(job, pr, runKey, detail)
	t, action, recorded, err := r.recordFailure(ctx, job, pr, f)
	if err != nil || !recorded {
		return err
	}
	switch action {
	case escalateTask:
		return r.escalateFailure(ctx, pub, t, f)
	case holdDebate:
		return r.failureDebate(ctx, gh, pub, repo, pr, t, f, detail.lines)
	}
	return nil
}

// failureConfig reads the configuration of the pull request's base branch; ok is false when
// it turns failure debates off or is broken (then the CI result is not recorded).
func failureConfig(ctx context.Context, gh pull.ConfigReader, pr review.PullRequest, meta *github.PullRequest) (repo *config.Repo, ok bool, err error) {
	repo, err = pull.LoadRepoConfig(ctx, gh, pr, meta.GetBase().GetRef())
	var ce *config.Error
	if errors.As(err, &ce) {
		zerolog.Ctx(ctx).Warn().Err(err).Msg("The repository configuration is broken; the CI result is not recorded.")
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return repo, *repo.FailureDebates, nil
}

// ciPassed records a run that passed: its task's last debate learns the outcome, and a task that
// was counting failures is reset, which its debate's comment says.
func (r *Runner) ciPassed(ctx context.Context, pub *publish.Publisher, job *Job, pr review.PullRequest) error {
	_, taskID := ciTask(job.CI, pr)
	if err := r.Store.DebateOutcome(ctx, pr.String(), taskID, job.HeadSHA, true); err != nil {
		return err
	}
	reset, err := r.Store.ResetTask(ctx, pr.String(), taskID)
	if err != nil || !reset {
		return err
	}
	zerolog.Ctx(ctx).Info().Msg("The task passed; its failure count is reset.")
	return r.noteOnDebate(ctx, pub, pr, taskID, fmt.Sprintf("**Passed** on %s: the failure count of this task is reset.", render.ShortSHA(job.HeadSHA)))
}

// failureOf is the failure a failed run records on one pull request (runKey): fingerprinted by
// its first error, else by its conclusion.
func (r *Runner) failureOf(job *Job, pr review.PullRequest, runKey string, detail failureDetail) *store.Failure {
	_, taskID := ciTask(job.CI, pr)
	f := &store.Failure{
		RunKey: runKey, PR: pr.String(), TaskID: taskID, At: job.CI.At,
		Fingerprint: dialectic.Fingerprint(detail.message), Message: truncate(detail.message, dialectic.MaxLineBytes), HeadSHA: job.HeadSHA, Files: detail.files,
	}
	if f.At.IsZero() {
		f.At = r.now()
	}
	if f.Fingerprint == "" {
		f.Fingerprint = job.CI.Conclusion
	}
	return f
}

// recordFailure records a failure on its task and moves the task's streak, and returns what the
// failure calls for; recorded is false when another worker recorded it meanwhile (and acts on it).
func (r *Runner) recordFailure(ctx context.Context, job *Job, pr review.PullRequest, f *store.Failure) (t *store.FailureTask, action failureAction, recorded bool, err error) {
	task, _ := ciTask(job.CI, pr)
	ft, recorded, err := r.Store.RecordFailure(ctx, f, task, nextStreak(f, &action))
	if err != nil || !recorded {
		return nil, noAction, false, err
	}
	zerolog.Ctx(ctx).Info().Str("fingerprint", f.Fingerprint).Int("attempt", ft.Streak).Msg("Recorded a CI failure.")
	if err := r.Store.DebateOutcome(ctx, pr.String(), f.TaskID, job.HeadSHA, false); err != nil {
		return nil, noAction, false, err
	}
	return &ft, action, true, nil
}

// resumeFailure finishes what a failure recorded before called for: a redelivery, or a retry of
// the job after the debate or its publication failed. What was decided and stored is published
// again; a debate decided in the store but never held (the job stopped in between) is held now,
// as long as the failure is still in the task's current streak.
func (r *Runner) resumeFailure(ctx context.Context, gh review.Comparer, pub *publish.Publisher, repo *config.Repo, pr review.PullRequest, f *store.Failure, read func(context.Context) failureDetail) error {
	if done, err := r.republishFailure(ctx, pub, f.RunKey); err != nil || done {
		return err
	}
	t, err := r.Store.FailureTaskOf(ctx, f.PR, f.TaskID)
	if err != nil {
		return err
	}
	current, err := r.Store.LastFailures(ctx, f.PR, f.TaskID, t.Streak)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(current, func(x store.Failure) bool { return x.RunKey == f.RunKey }) {
		return nil
	}
	switch {
	case t.Debated == f.Attempt:
		return r.failureDebate(ctx, gh, pub, repo, pr, t, f, read(ctx).lines)
	case t.Escalated && t.Debated > 0 && f.Attempt == t.Debated+1:
		return r.escalateFailure(ctx, pub, t, f)
	}
	return nil
}
