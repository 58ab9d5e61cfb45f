package handlers

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/dialectic"
	"github.com/debatebot/debatebot/review"
)

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
