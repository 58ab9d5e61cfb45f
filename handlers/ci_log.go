package handlers

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/dialectic"
	"github.com/debatebot/debatebot/review"
)

// ciLogs is what reading a failed run's first error needs of GitHub (review.GitHub implements
// it): the jobs of a workflow run, where a job's log is stored, and a check run's annotations.
type ciLogs interface {
	// WorkflowJobs is one page (0 is the first) of the latest attempt's jobs of a workflow run,
	// with the next page, 0 after the last.
	WorkflowJobs(ctx context.Context, pr review.PullRequest, runID int64, page int) ([]*github.WorkflowJob, int, error)
	// JobLogURL is where GitHub redirects for a job's log (another host: fetched without the
	// installation's token).
	JobLogURL(ctx context.Context, pr review.PullRequest, jobID int64) (*url.URL, error)
	// CheckRunAnnotations is the first page of a check run's annotations.
	CheckRunAnnotations(ctx context.Context, pr review.PullRequest, runID int64) ([]*github.CheckRunAnnotation, error)
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
func (r *Runner) readFailure(ctx context.Context, gh ciLogs, pr review.PullRequest, run *CIRun) failureDetail {
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

func (r *Runner) readWorkflowFailure(ctx context.Context, gh ciLogs, pr review.PullRequest, run *CIRun) (failureDetail, error) {
	var d failureDetail
	var failed *github.WorkflowJob
	for page, pages := 0, 0; pages < 5 && failed == nil; pages++ {
		jobs, next, err := gh.WorkflowJobs(ctx, pr, run.ID, page)
		if err != nil {
			return d, fmt.Errorf("failed to list the jobs of workflow run %d of %s: %w", run.ID, pr.Repository(), err)
		}
		for _, j := range jobs {
			if c := j.GetConclusion(); c == "failure" || c == "timed_out" {
				failed = j
				break
			}
		}
		if next == 0 {
			break
		}
		page = next
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
func (r *Runner) jobLog(ctx context.Context, gh ciLogs, pr review.PullRequest, jobID int64) (string, error) {
	u, err := gh.JobLogURL(ctx, pr, jobID)
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

func (r *Runner) readCheckFailure(ctx context.Context, gh ciLogs, pr review.PullRequest, run *CIRun) (failureDetail, error) {
	var d failureDetail
	anns, err := gh.CheckRunAnnotations(ctx, pr, run.ID)
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
