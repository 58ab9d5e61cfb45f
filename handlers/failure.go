package handlers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/dialectic"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/publish"
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

// ciPullRequest is an entry of a workflow run's or check run's pull_requests: GitHub lists the
// pull requests of the repository whose head is the run's head (none for a fork's).
type ciPullRequest struct {
	Number int `json:"number"`
	Head   struct {
		SHA string `json:"sha"`
	} `json:"head"`
}

type (
	workflowRunPayload struct {
		Action       string           `json:"action"`
		Installation slimInstallation `json:"installation"`
		Repository   slimRepo         `json:"repository"`
		WorkflowRun  struct {
			ID           int64           `json:"id"`
			Name         string          `json:"name"`
			HeadSHA      string          `json:"head_sha"`
			Conclusion   string          `json:"conclusion"`
			RunAttempt   int             `json:"run_attempt"`
			UpdatedAt    time.Time       `json:"updated_at"`
			PullRequests []ciPullRequest `json:"pull_requests"`
		} `json:"workflow_run"`
	}
	checkRunPayload struct {
		Action       string           `json:"action"`
		Installation slimInstallation `json:"installation"`
		Repository   slimRepo         `json:"repository"`
		CheckRun     struct {
			ID          int64     `json:"id"`
			Name        string    `json:"name"`
			HeadSHA     string    `json:"head_sha"`
			Conclusion  string    `json:"conclusion"`
			CompletedAt time.Time `json:"completed_at"`
			App         struct {
				Slug string `json:"slug"`
			} `json:"app"`
			Output struct {
				Title   string `json:"title"`
				Summary string `json:"summary"`
			} `json:"output"`
			PullRequests []ciPullRequest `json:"pull_requests"`
		} `json:"check_run"`
	}
)

var shaPattern = regexp.MustCompile(`^[0-9a-f]{7,64}$`)

func validateCI(repo slimRepo, installation, id int64, head string) error {
	if err := validateInstalled(repo, installation); err != nil {
		return err
	}
	if id <= 0 {
		return fmt.Errorf("no run id (%d)", id)
	}
	if !shaPattern.MatchString(head) {
		return fmt.Errorf("head_sha %q is not a commit", truncate(head, 64))
	}
	return nil
}

func (p *workflowRunPayload) validate() error {
	return validateCI(p.Repository, p.Installation.ID, p.WorkflowRun.ID, p.WorkflowRun.HeadSHA)
}

func (p *checkRunPayload) validate() error {
	return validateCI(p.Repository, p.Installation.ID, p.CheckRun.ID, p.CheckRun.HeadSHA)
}

// prOf is the pull request a run names for its head, or number 0 when it names none (a fork's
// pull request, or several): the runner asks GitHub for the pull requests of the commit.
func prOf(repo slimRepo, head string, prs []ciPullRequest) review.PullRequest {
	var found []int
	for _, p := range prs {
		if p.Head.SHA == head && p.Number > 0 {
			found = append(found, p.Number)
		}
	}
	n := 0
	if len(found) == 1 {
		n = found[0]
	}
	return repo.pr(n)
}

// WorkflowRun handles workflow_run deliveries: a completed run that failed or succeeded on a pull
// request's head is a KindCI job.
type WorkflowRun struct{ Base }

var _ githubapp.EventHandler = &WorkflowRun{}

// Handles implements githubapp.EventHandler.
func (h *WorkflowRun) Handles() []string { return []string{"workflow_run"} }

// Handle implements githubapp.EventHandler.
func (h *WorkflowRun) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var e workflowRunPayload
	if err := decode(payload, &e, eventType); err != nil {
		return err
	}
	run := &CIRun{Source: "workflow_run", ID: e.WorkflowRun.ID, Attempt: max(e.WorkflowRun.RunAttempt, 1), Name: e.WorkflowRun.Name,
		Conclusion: e.WorkflowRun.Conclusion, At: e.WorkflowRun.UpdatedAt}
	if e.Action != "completed" || (!run.Failed() && !run.Passed()) {
		return nil
	}
	pr := prOf(e.Repository, e.WorkflowRun.HeadSHA, e.WorkflowRun.PullRequests)
	return h.enqueue(logContext(ctx, e.Installation.ID, pr), &Job{
		DeliveryID: deliveryID, Trigger: "workflow_run.completed", Kind: KindCI, Installation: e.Installation.ID,
		PR: pr, HeadSHA: e.WorkflowRun.HeadSHA, CI: run,
	})
}

// CheckRun handles check_run deliveries of other Apps' checks. GitHub Actions' own check runs
// (one per job) are left to workflow_run, which sees the same failure once per workflow, and this
// App's own check run is the debate's, not CI.
type CheckRun struct{ Base }

var _ githubapp.EventHandler = &CheckRun{}

// Handles implements githubapp.EventHandler.
func (h *CheckRun) Handles() []string { return []string{"check_run"} }

// ActionsApp is the slug of GitHub Actions' check runs.
const ActionsApp = "github-actions"

// Handle implements githubapp.EventHandler.
func (h *CheckRun) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var e checkRunPayload
	if err := decode(payload, &e, eventType); err != nil {
		return err
	}
	c := e.CheckRun
	run := &CIRun{Source: "check_run", ID: c.ID, Attempt: 1, Name: c.Name, Conclusion: c.Conclusion, At: c.CompletedAt,
		Title: truncate(c.Output.Title, 1024), Summary: truncate(c.Output.Summary, 4096)}
	if e.Action != "completed" || (!run.Failed() && !run.Passed()) || c.App.Slug == ActionsApp || c.App.Slug == h.Slug {
		return nil
	}
	pr := prOf(e.Repository, c.HeadSHA, c.PullRequests)
	return h.enqueue(logContext(ctx, e.Installation.ID, pr), &Job{
		DeliveryID: deliveryID, Trigger: "check_run.completed", Kind: KindCI, Installation: e.Installation.ID,
		PR: pr, HeadSHA: c.HeadSHA, CI: run,
	})
}

// FailureMarker is the marker of a task's failure debate comment: one per task, edited in place.
func FailureMarker(taskID string) string { return "<!-- debatebot:failure-" + taskID + " -->" }

// StaleFailure is seed 000's staleness guideline: a failure older than this is not consecutive
// with the next one, unless nothing changed since (the same commit failed again).
const StaleFailure = 24 * time.Hour

// Consecutive reports whether a failure continues a task's streak: the same fingerprint, and
// either recent or on the same commit.
func Consecutive(prev store.FailureTask, f *store.Failure) bool {
	if prev.Streak == 0 || prev.Fingerprint != f.Fingerprint {
		return false
	}
	return f.At.Sub(prev.LastAt) <= StaleFailure || prev.LastHead == f.HeadSHA
}

// failureAction is what a recorded failure calls for.
type failureAction int

const (
	noAction failureAction = iota
	// holdDebate: the second consecutive failure with the same fingerprint.
	holdDebate
	// escalateTask: a failure after the task's failure debate (its one more attempt spent).
	escalateTask
)

// nextStreak moves a task's streak by a failure and decides, in the same transaction, what the
// failure calls for: two workers recording two failures of a task at once cannot both hold its
// debate.
func nextStreak(f *store.Failure, action *failureAction) func(store.FailureTask) store.FailureTask {
	return func(t store.FailureTask) store.FailureTask {
		if Consecutive(t, f) {
			t.Streak++
		} else {
			t.Streak, t.Debated, t.Escalated = 1, 0, false
		}
		t.Fingerprint, t.LastAt, t.LastHead, t.Files = f.Fingerprint, f.At, f.HeadSHA, f.Files
		*action = noAction
		switch {
		case t.Escalated:
		case t.Debated > 0 && t.Streak > t.Debated:
			t.Escalated, *action = true, escalateTask
		case t.Streak >= 2 && t.Debated == 0:
			t.Debated, *action = t.Streak, holdDebate
		}
		return t
	}
}

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
	prs, err := r.headPullRequests(ctx, gh, job)
	if err != nil {
		return err
	}
	// The run's failure is the same on every pull request: it is read once, when the first of
	// them records it (or holds its debate), and not at all when none does.
	var detail *failureDetail
	read := func(ctx context.Context) failureDetail {
		if detail == nil {
			d := r.readFailure(ctx, gh, job.PR, job.CI)
			detail = &d
		}
		return *detail
	}
	var errs []error
	for _, meta := range prs {
		pr := review.PullRequest{Owner: job.PR.Owner, Repo: job.PR.Repo, Number: meta.GetNumber()}
		log := zerolog.Ctx(ctx).With().Int("pr_number", pr.Number).Str("task", job.CI.Name).Logger()
		if err := r.ciResult(log.WithContext(ctx), gh, job, pr, meta, read); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// headPullRequests are the open pull requests whose head is the job's commit: the one the
// delivery named, read from GitHub, or those GitHub lists for the commit, as it lists them (with
// their state, head and base).
func (r *Runner) headPullRequests(ctx context.Context, gh *github.Client, job *Job) ([]*github.PullRequest, error) {
	// A run of an older head, or of a closed pull request, is no failure of the change under review.
	current := func(p *github.PullRequest) bool { return p.GetState() == "open" && p.GetHead().GetSHA() == job.HeadSHA }
	if job.PR.Number > 0 {
		meta, _, err := gh.PullRequests.Get(ctx, job.PR.Owner, job.PR.Repo, job.PR.Number)
		if err != nil {
			return nil, fmt.Errorf("failed to get pull request %s/%s#%d: %w", job.PR.Owner, job.PR.Repo, job.PR.Number, err)
		}
		if !current(meta) {
			return nil, nil
		}
		return []*github.PullRequest{meta}, nil
	}
	var out []*github.PullRequest
	opts := &github.ListOptions{PerPage: 100}
	for page := 0; page < 5; page++ {
		list, resp, err := gh.PullRequests.ListPullRequestsWithCommit(ctx, job.PR.Owner, job.PR.Repo, job.HeadSHA, opts)
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
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return out, nil
}

// ciTask is the task a run is an attempt at: the workflow's or check's name on the pull request.
func ciTask(run *CIRun, pr review.PullRequest) (text, id string) {
	text = fmt.Sprintf("%s on %s", run.Name, pr)
	return text, dialectic.TaskID(text)
}

// ciResult records one run's result on one pull request and acts on the task's streak: a
// success resets it; the second consecutive failure with the same fingerprint holds a failure
// debate; a failure after the debate (its one more attempt spent) escalates without another.
// read reads the run's failure (once for all the pull requests of the run).
func (r *Runner) ciResult(ctx context.Context, gh *github.Client, job *Job, pr review.PullRequest, meta *github.PullRequest, read func(context.Context) failureDetail) error {
	log := zerolog.Ctx(ctx)
	repo, err := LoadRepoConfig(ctx, gh, pr, meta.GetBase().GetRef())
	var ce *config.Error
	if errors.As(err, &ce) {
		log.Warn().Err(err).Msg("The repository configuration is broken; the CI result is not recorded.")
		return nil
	}
	if err != nil {
		return err
	}
	if !*repo.FailureDebates {
		return nil
	}
	run := job.CI
	task, taskID := ciTask(run, pr)
	pub := r.publisher(ctx, gh, &Job{PR: pr})
	if run.Passed() {
		if err := r.Store.DebateOutcome(ctx, pr.String(), taskID, job.HeadSHA, true); err != nil {
			return err
		}
		reset, err := r.Store.ResetTask(ctx, pr.String(), taskID)
		if err != nil || !reset {
			return err
		}
		log.Info().Msg("The task passed; its failure count is reset.")
		return r.noteOnDebate(ctx, pub, pr, taskID, fmt.Sprintf("**Passed** on %s: the failure count of this task is reset.", render.ShortSHA(job.HeadSHA)))
	}
	runKey := fmt.Sprintf("%s/%d/%d@%s", run.Source, run.ID, run.Attempt, pr)
	if f, err := r.Store.FailureByKey(ctx, runKey); err == nil {
		return r.resumeFailure(ctx, gh, pub, repo, pr, f, read)
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	detail := read(ctx)
	f := &store.Failure{
		RunKey: runKey, PR: pr.String(), TaskID: taskID, At: run.At,
		Fingerprint: dialectic.Fingerprint(detail.message), Message: truncate(detail.message, dialectic.MaxLineBytes), HeadSHA: job.HeadSHA, Files: detail.files,
	}
	if f.At.IsZero() {
		f.At = r.now()
	}
	if f.Fingerprint == "" {
		f.Fingerprint = run.Conclusion
	}
	var action failureAction
	t, recorded, err := r.Store.RecordFailure(ctx, f, task, nextStreak(f, &action))
	if err != nil {
		return err
	}
	if !recorded {
		// Recorded meanwhile by another worker, which acts on it.
		return nil
	}
	log.Info().Str("fingerprint", f.Fingerprint).Int("attempt", t.Streak).Msg("Recorded a CI failure.")
	if err := r.Store.DebateOutcome(ctx, pr.String(), taskID, job.HeadSHA, false); err != nil {
		return err
	}
	switch action {
	case escalateTask:
		return r.escalateFailure(ctx, pub, &t, f)
	case holdDebate:
		return r.failureDebate(ctx, gh, pub, repo, pr, &t, f, detail.lines)
	}
	return nil
}

// resumeFailure finishes what a failure recorded before called for: a redelivery, or a retry of
// the job after the debate or its publication failed. What was decided and stored is published
// again; a debate decided in the store but never held (the job stopped in between) is held now,
// as long as the failure is still in the task's current streak.
func (r *Runner) resumeFailure(ctx context.Context, gh *github.Client, pub *publish.Publisher, repo *config.Repo, pr review.PullRequest, f *store.Failure, read func(context.Context) failureDetail) error {
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

// failureDetail is what a failed run says about its failure (all untrusted, bounded).
type failureDetail struct {
	message string
	files   []string
	lines   []string
}

// readFailure reads a failed run's first error: for a workflow run, the first failed job's first
// failed step and its log; for a check run, its first failure annotation, or its output. What
// cannot be read is said plainly (the fingerprint is then the step's or check's). Only pr's
// repository is used: the run is the same on each of its pull requests.
func (r *Runner) readFailure(ctx context.Context, gh *github.Client, pr review.PullRequest, run *CIRun) failureDetail {
	log := zerolog.Ctx(ctx)
	var d failureDetail
	var err error
	if run.Source == "workflow_run" {
		d, err = r.readWorkflowFailure(ctx, gh, pr, run)
	} else {
		d, err = r.readCheckFailure(ctx, gh, pr, run)
	}
	if err != nil {
		log.Warn().Err(err).Msg("Could not read the failure's details; its fingerprint is its conclusion's.")
	}
	if d.message == "" && run.Conclusion == "timed_out" {
		d.message = run.Name + " timed out"
	}
	if d.message == "" {
		d.message = fmt.Sprintf("%s concluded %s", run.Name, run.Conclusion)
	}
	if d.files == nil {
		d.files = dialectic.FilesIn(d.message)
	}
	return d
}

func (r *Runner) readWorkflowFailure(ctx context.Context, gh *github.Client, pr review.PullRequest, run *CIRun) (failureDetail, error) {
	var d failureDetail
	opts := &github.ListWorkflowJobsOptions{Filter: "latest", ListOptions: github.ListOptions{PerPage: 100}}
	var failed *github.WorkflowJob
	for page := 0; page < 5 && failed == nil; page++ {
		jobs, resp, err := gh.Actions.ListWorkflowJobs(ctx, pr.Owner, pr.Repo, run.ID, opts)
		if err != nil {
			return d, fmt.Errorf("failed to list the jobs of workflow run %d of %s: %w", run.ID, pr.Repository(), err)
		}
		for _, j := range jobs.Jobs {
			if c := j.GetConclusion(); c == "failure" || c == "timed_out" {
				failed = j
				break
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if failed == nil {
		return d, nil
	}
	step := ""
	for _, s := range failed.Steps {
		if c := s.GetConclusion(); c == "failure" || c == "timed_out" {
			step = s.GetName()
			break
		}
	}
	text, err := r.jobLog(ctx, gh, pr, failed.GetID())
	if err != nil {
		d.message = fmt.Sprintf("step %q of job %q failed", step, failed.GetName())
		return d, err
	}
	d.message, d.lines = dialectic.ErrorMessage(text), dialectic.RelevantLines(text)
	if d.message == "" && step != "" {
		d.message = fmt.Sprintf("step %q of job %q failed", step, failed.GetName())
	}
	return d, nil
}

// jobLog downloads a job's log: GitHub answers 302 with a short-lived URL on its log storage,
// which is fetched without the installation token (it is another host). Only the log's last
// dialectic.MaxLogBytes are kept, where the failure is, and at most four times that is read.
func (r *Runner) jobLog(ctx context.Context, gh *github.Client, pr review.PullRequest, jobID int64) (string, error) {
	u, _, err := gh.Actions.GetWorkflowJobLogs(ctx, pr.Owner, pr.Repo, jobID, 0)
	if err != nil {
		return "", fmt.Errorf("failed to get the logs of job %d of %s: %w", jobID, pr.Repository(), err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return "", fmt.Errorf("the logs of job %d of %s redirect to a %q URL", jobID, pr.Repository(), u.Scheme)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", fmt.Errorf("failed to download the logs of job %d of %s: %w", jobID, pr.Repository(), err)
	}
	client := r.LogClient
	if client == nil {
		client = &http.Client{Timeout: time.Minute}
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("failed to download the logs of job %d of %s: %w", jobID, pr.Repository(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("failed to download the logs of job %d of %s: the log storage answered %s", jobID, pr.Repository(), resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4*dialectic.MaxLogBytes))
	if err != nil {
		return "", fmt.Errorf("failed to read the logs of job %d of %s: %w", jobID, pr.Repository(), err)
	}
	if len(body) > dialectic.MaxLogBytes {
		body = body[len(body)-dialectic.MaxLogBytes:]
	}
	return string(body), nil
}

func (r *Runner) readCheckFailure(ctx context.Context, gh *github.Client, pr review.PullRequest, run *CIRun) (failureDetail, error) {
	var d failureDetail
	anns, _, err := gh.Checks.ListCheckRunAnnotations(ctx, pr.Owner, pr.Repo, run.ID, &github.ListOptions{PerPage: 100})
	if err != nil {
		err = fmt.Errorf("failed to list the annotations of check run %d of %s: %w", run.ID, pr.Repository(), err)
	}
	var first *github.CheckRunAnnotation
	for _, a := range anns {
		if a.GetAnnotationLevel() == "failure" {
			first = a
			break
		}
	}
	if first == nil && len(anns) > 0 {
		first = anns[0]
	}
	for _, a := range anns {
		if len(d.lines) == dialectic.MaxLogLines {
			break
		}
		d.lines = append(d.lines, dialectic.CleanLine(truncate(fmt.Sprintf("%s:%d: %s: %s", a.GetPath(), a.GetStartLine(), a.GetAnnotationLevel(), strings.Join(strings.Fields(a.GetMessage()), " ")), dialectic.MaxLineBytes)))
	}
	if first != nil {
		d.message = strings.TrimSpace(first.GetMessage())
		if p := first.GetPath(); p != "" {
			d.files = []string{p}
		}
		return d, err
	}
	text := strings.TrimSpace(run.Title + "\n" + run.Summary)
	d.message, d.lines = dialectic.ErrorMessage(text), dialectic.RelevantLines(text)
	if d.message == "" {
		d.message = strings.TrimSpace(run.Title)
	}
	return d, err
}

// changedBetween lists the files that changed between two heads of a pull request; known is
// false when GitHub cannot compare them (a force push that dropped the older one).
func changedBetween(ctx context.Context, gh *github.Client, pr review.PullRequest, from, to string) (files []string, known bool) {
	if from == to {
		return nil, true
	}
	cmp, _, err := gh.Repositories.CompareCommits(ctx, pr.Owner, pr.Repo, from, to, &github.ListOptions{PerPage: 100})
	if err != nil {
		zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not compare the failing heads.")
		return nil, false
	}
	for _, f := range cmp.Files {
		files = append(files, f.GetFilename())
		if prev := f.GetPreviousFilename(); prev != "" {
			files = append(files, prev)
		}
	}
	return files, true
}

// failureDebate holds seed 000's failure debate over the task's last two attempts and publishes
// it as the task's one comment; an ESCALATE labels the pull request.
func (r *Runner) failureDebate(ctx context.Context, gh *github.Client, pub *publish.Publisher, repo *config.Repo, pr review.PullRequest, t *store.FailureTask, f *store.Failure, lines []string) error {
	fails, err := r.Store.LastFailures(ctx, pr.String(), t.TaskID, 2)
	if err != nil {
		return err
	}
	req := &dialectic.FailureRequest{Task: t.Task, TaskID: t.TaskID, Log: lines, PreviousPatterns: t.Patterns}
	for i, x := range fails {
		req.Attempts = append(req.Attempts, dialectic.Attempt{N: t.Streak - len(fails) + 1 + i, At: x.At, Fingerprint: x.Fingerprint, Message: x.Message, Head: x.HeadSHA, Files: x.Files})
	}
	if len(fails) == 2 {
		req.Changed, req.ChangeKnown = changedBetween(ctx, gh, pr, fails[0].HeadSHA, fails[1].HeadSHA)
	}
	key := "failure/" + f.RunKey
	agents, offline, ok, err := r.dialecticBudget(ctx, pub, repo, key, "")
	if err != nil || !ok {
		return err
	}
	rec, err := dialectic.DebateFailure(ctx, agents, req)
	if err != nil {
		return fmt.Errorf("failed to hold the failure debate of %q on %s: %w", t.Task, pr, err)
	}
	r.dialecticSpent(rec)
	md := r.dialecticSpentBudget(ctx, pr.Repository(), key, rec, offline)
	if err := r.Store.TaskDebated(ctx, pr.String(), t.TaskID, rec.FCrit.Pattern, rec.Synthesis.Resolution == dialectic.Escalate); err != nil {
		return err
	}
	d := &store.DialecticDebate{ID: key, Type: string(dialectic.Failure), PR: pr.String(), TaskID: t.TaskID, HeadSHA: f.HeadSHA,
		Resolution: string(rec.Synthesis.Resolution), Agents: rec.By, At: r.now(), Record: []byte(md)}
	if err := r.Store.SaveDialecticDebate(ctx, d); err != nil {
		return err
	}
	zerolog.Ctx(ctx).Info().Str("resolution", string(rec.Synthesis.Resolution)).Msg("Held a failure debate.")
	return r.publishFailure(ctx, pub, d)
}

// escalateFailure escalates a task whose one attempt after its failure debate failed again
// with the same error (seed 000: then auto-escalate), without another debate.
func (r *Runner) escalateFailure(ctx context.Context, pub *publish.Publisher, t *store.FailureTask, f *store.Failure) error {
	prior, err := r.latestFailureRecord(ctx, f.PR, t.TaskID)
	if err != nil {
		return err
	}
	note := fmt.Sprintf("\n\n**Escalated to a human** after attempt %d on %s failed again with the same error (`%s`): seed 000 allows %d more attempt after a failure debate, and it was spent. No further debate is held; comment `/debate fresh` to start counting again.",
		t.Streak, render.ShortSHA(f.HeadSHA), strings.ReplaceAll(f.Fingerprint, "`", "'"), dialectic.MaxAttemptsAfterDebate)
	d := &store.DialecticDebate{ID: "escalation/" + f.RunKey, Type: "escalation", PR: f.PR, TaskID: t.TaskID, HeadSHA: f.HeadSHA,
		Resolution: string(dialectic.Escalate), Agents: "rules", At: r.now(), Record: []byte(prior + note)}
	if err := r.Store.SaveDialecticDebate(ctx, d); err != nil {
		return err
	}
	zerolog.Ctx(ctx).Info().Int("attempt", t.Streak).Msg("Escalated a task that failed again after its failure debate.")
	return r.publishFailure(ctx, pub, d)
}

// publishFailure writes a failure debate (or escalation) as the task's comment, and labels the
// pull request when it escalates; each write is tried three times.
func (r *Runner) publishFailure(ctx context.Context, pub *publish.Publisher, d *store.DialecticDebate) error {
	steps := []func() error{func() error { return pub.Upsert(ctx, FailureMarker(d.TaskID), string(d.Record)) }}
	if d.Resolution == string(dialectic.Escalate) {
		steps = append(steps, func() error { return pub.Label(ctx, publish.EscalationLabel) })
	}
	for _, step := range steps {
		if err := retry(ctx, 3, step); err != nil {
			return fmt.Errorf("failed to publish the failure debate of task %s on %s: %w", d.TaskID, d.PR, err)
		}
	}
	return nil
}

// republishFailure publishes again what was decided for a failure already recorded, and
// reports whether there was anything.
func (r *Runner) republishFailure(ctx context.Context, pub *publish.Publisher, runKey string) (bool, error) {
	for _, prefix := range []string{"escalation/", "failure/"} {
		d, err := r.Store.DialecticDebateByID(ctx, prefix+runKey)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return false, err
		}
		return true, r.publishFailure(ctx, pub, d)
	}
	return false, nil
}

// latestFailureRecord is the comment body of the task's latest failure debate or escalation.
func (r *Runner) latestFailureRecord(ctx context.Context, pr, taskID string) (string, error) {
	d, err := r.Store.LatestDialecticDebate(ctx, pr, taskID)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return string(d.Record), nil
}

// noteOnDebate appends a note to the task's debate comment, when it has one.
func (r *Runner) noteOnDebate(ctx context.Context, pub *publish.Publisher, pr review.PullRequest, taskID, note string) error {
	prior, err := r.latestFailureRecord(ctx, pr.String(), taskID)
	if err != nil || prior == "" {
		return err
	}
	return retry(ctx, 3, func() error { return pub.Upsert(ctx, FailureMarker(taskID), prior+"\n\n"+note) })
}

// dialecticSpent counts a model-backed failure or planning debate's tokens in the metrics, and
// says what it cost on its comment.
func (r *Runner) dialecticSpent(rec *dialectic.Record) {
	u := rec.Usage
	if u.Calls == 0 {
		return
	}
	if r.Metrics != nil {
		r.Metrics.Tokens.WithLabelValues("prompt").Add(float64(u.Prompt))
		r.Metrics.Tokens.WithLabelValues("completion").Add(float64(u.Completion))
		r.Metrics.Tokens.WithLabelValues("cached_prompt").Add(float64(u.CachedPrompt))
	}
}

// dialecticAgents are the failure and planning debates' agents: the model's when one is
// configured, the rules otherwise.
func (r *Runner) dialecticAgents(repo *config.Repo) dialectic.Agents {
	if r.Dialectic != nil {
		if a := r.Dialectic(repo); a != nil {
			return a
		}
	}
	return dialectic.Rules{}
}

// pushed resets the streaks of a pull request's tasks when the push changed CI's environment
// (workflows, dependency manifests, toolchain pins: dialectic.Environment), seed 000's
// "environment changed", the significant change of context after which earlier failures say
// nothing about the next run. A push to the failing files is not one: it is the next attempt at
// the failure, and the same error after it is the loop a failure debate is for (seed 000 counts
// attempts with their approaches as consecutive). A push GitHub cannot compare (a force push)
// resets nothing: what it touched is unknown.
func (r *Runner) pushed(ctx context.Context, gh *github.Client, job *Job) error {
	tasks, err := r.Store.FailureTasks(ctx, job.PR.String())
	if err != nil {
		return err
	}
	var open []store.FailureTask
	for _, t := range tasks {
		if t.PushCanReset() {
			open = append(open, t)
		}
	}
	if len(open) == 0 || job.Before == "" {
		return nil
	}
	changed, known := changedBetween(ctx, gh, job.PR, job.Before, job.HeadSHA)
	if !known {
		return nil
	}
	env := dialectic.Environment(changed)
	if len(env) == 0 {
		return nil
	}
	for _, t := range open {
		if _, err := r.Store.ResetTask(ctx, job.PR.String(), t.TaskID); err != nil {
			return err
		}
		zerolog.Ctx(ctx).Info().Str("task", t.Task).Strs("environment", env).Msg("A push changed CI's environment; the failure count is reset.")
	}
	return nil
}

// fresh holds "/debate fresh": a commenter with command_permission resets every failure count
// of the pull request (seed 000: "start fresh").
func (r *Runner) fresh(ctx context.Context, gh *github.Client, pub *publish.Publisher, job *Job) error {
	repo, err := r.commandConfig(ctx, gh, job)
	if err != nil {
		return err
	}
	if ok, err := r.permitted(ctx, gh, pub, job, repo.CommandPermission, "`/debate fresh`", "Nothing was changed."); !ok {
		return err
	}
	tasks, err := r.Store.FailureTasks(ctx, job.PR.String())
	if err != nil {
		return err
	}
	var names []string
	for _, t := range tasks {
		ok, err := r.Store.ResetTask(ctx, job.PR.String(), t.TaskID)
		if err != nil {
			return err
		}
		if ok {
			names = append(names, "`"+strings.ReplaceAll(t.Task, "`", "'")+"`")
		}
	}
	if len(names) == 0 {
		return r.refuse(ctx, gh, pub, job, fmt.Sprintf("@%s: no task of this pull request is counting failures; `/debate fresh` changed nothing.", job.Requester))
	}
	return pub.Comment(ctx, fmt.Sprintf("@%s started fresh: the failure counts of %s are reset.", job.Requester, strings.Join(names, ", ")))
}
