package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"sync"

	"github.com/google/go-github/v62/github"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/pull/pulltest"
)

// fakeGitHub is a plain fake of what the CI and alert jobs need of GitHub (ciLogs, headPulls,
// alertGitHub, commandGitHub, review.Comparer), for unit tests without the HTTP fake: the reading of a pull
// request, its repository's files and comparisons come from the embedded pulltest.Fake; the
// runs, a commit's pull requests, the repository and its issues from the fields below.
type fakeGitHub struct {
	*pulltest.Fake
	// WithCommit are the pull requests GitHub lists for each commit; PerPage of them a page.
	WithCommit map[string][]*github.PullRequest
	// Jobs are each workflow run's jobs, PerPage a page; LogURLs each job's log URL.
	Jobs    map[int64][]*github.WorkflowJob
	LogURLs map[int64]string
	// Annotations are each check run's annotations.
	Annotations map[int64][]*github.CheckRunAnnotation
	// Repo is the repository.
	Repo *github.Repository
	// Issues are the repository's issues by number; a number missing is a 404.
	Issues map[int]*github.Issue
	// Fail makes a method ("WorkflowJobs", "Issue", ...) fail with its error.
	Fail map[string]error

	mu sync.Mutex
	// Reactions are the reactions added, as "commentID content".
	Reactions []string
	// Comments are the comments written on each issue, by marker.
	Comments map[int]map[string]string
	// Edits counts the edits of each issue's body.
	Edits map[int]int
}

func newFakeGitHub() *fakeGitHub {
	return &fakeGitHub{Fake: &pulltest.Fake{}, Issues: map[int]*github.Issue{}, Comments: map[int]map[string]string{}, Edits: map[int]int{}}
}

func (f *fakeGitHub) failure(method string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.Fail[method]
}

func fakePage[T any](all []T, page, per int) ([]T, int) {
	if per <= 0 {
		per = 100
	}
	page = max(page, 1)
	from := min((page-1)*per, len(all))
	to := min(from+per, len(all))
	if to < len(all) {
		return all[from:to], page + 1
	}
	return all[from:to], 0
}

func (f *fakeGitHub) PullRequestsWithCommit(_ context.Context, _ review.PullRequest, sha string, page int) ([]*github.PullRequest, int, error) {
	if err := f.failure("PullRequestsWithCommit"); err != nil {
		return nil, 0, err
	}
	list, next := fakePage(f.WithCommit[sha], page, f.PerPage)
	return list, next, nil
}

func (f *fakeGitHub) WorkflowJobs(_ context.Context, _ review.PullRequest, runID int64, page int) ([]*github.WorkflowJob, int, error) {
	if err := f.failure("WorkflowJobs"); err != nil {
		return nil, 0, err
	}
	list, next := fakePage(f.Jobs[runID], page, f.PerPage)
	return list, next, nil
}

func (f *fakeGitHub) JobLogURL(_ context.Context, _ review.PullRequest, jobID int64) (*url.URL, error) {
	if err := f.failure("JobLogURL"); err != nil {
		return nil, err
	}
	raw, ok := f.LogURLs[jobID]
	if !ok {
		return nil, pulltest.Status(http.StatusNotFound, "Not Found")
	}
	return url.Parse(raw)
}

func (f *fakeGitHub) CheckRunAnnotations(_ context.Context, _ review.PullRequest, runID int64) ([]*github.CheckRunAnnotation, error) {
	return f.Annotations[runID], f.failure("CheckRunAnnotations")
}

func (f *fakeGitHub) Repository(context.Context, review.PullRequest) (*github.Repository, error) {
	if err := f.failure("Repository"); err != nil {
		return nil, err
	}
	if f.Repo == nil {
		return nil, pulltest.Status(http.StatusNotFound, "Not Found")
	}
	return f.Repo, nil
}

func (f *fakeGitHub) Issue(_ context.Context, _ review.PullRequest, number int) (*github.Issue, error) {
	if err := f.failure("Issue"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	is, ok := f.Issues[number]
	if !ok {
		return nil, pulltest.Status(http.StatusNotFound, "Not Found")
	}
	c := *is
	return &c, nil
}

func (f *fakeGitHub) EditIssueBody(_ context.Context, _ review.PullRequest, number int, body string) error {
	if err := f.failure("EditIssueBody"); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	is, ok := f.Issues[number]
	if !ok {
		return pulltest.Status(http.StatusNotFound, "Not Found")
	}
	is.Body = github.String(body)
	f.Edits[number]++
	return nil
}

func (f *fakeGitHub) CreateIssue(_ context.Context, _ review.PullRequest, title, body string) (int, error) {
	if err := f.failure("CreateIssue"); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 100 + len(f.Issues)
	f.Issues[n] = &github.Issue{Number: github.Int(n), Title: github.String(title), Body: github.String(body), State: github.String("open")}
	return n, nil
}

func (f *fakeGitHub) CloseIssue(_ context.Context, _ review.PullRequest, number int, marker, comment, reason string) error {
	if err := f.failure("CloseIssue"); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	is, ok := f.Issues[number]
	if !ok {
		return pulltest.Status(http.StatusNotFound, "Not Found")
	}
	if f.Comments[number] == nil {
		f.Comments[number] = map[string]string{}
	}
	f.Comments[number][marker] = comment
	is.State, is.StateReason = github.String("closed"), github.String(reason)
	return nil
}

func (f *fakeGitHub) ReactToComment(_ context.Context, _ review.PullRequest, commentID int64, content string) error {
	if err := f.failure("ReactToComment"); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Reactions = append(f.Reactions, fmt.Sprintf("%d %s", commentID, content))
	return nil
}

// open are the numbers of the open issues, in order.
func (f *fakeGitHub) open() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []int
	for n, is := range f.Issues {
		if is.GetState() == "open" {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}

func (f *fakeGitHub) body(n int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if is := f.Issues[n]; is != nil {
		return is.GetBody()
	}
	return fmt.Sprintf("(no issue #%d)", n)
}

// The fake implements every interface the jobs take.
var (
	_ ciLogs          = (*fakeGitHub)(nil)
	_ headPulls       = (*fakeGitHub)(nil)
	_ alertGitHub     = (*fakeGitHub)(nil)
	_ review.Comparer = (*fakeGitHub)(nil)
	_ commandGitHub   = (*fakeGitHub)(nil)
	_ reviewGitHub    = (*fakeGitHub)(nil)
	_ alertGitHub     = issueGitHub{}
)
