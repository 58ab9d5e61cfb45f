package githubtest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-github/v62/github"
)

func client(t *testing.T, s *Server) *github.Client {
	t.Helper()
	gh := github.NewClient(nil).WithAuthToken("installation-token")
	u, err := url.Parse(s.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	gh.BaseURL = u
	return gh
}

func TestActionsEndpoints(t *testing.T) {
	s := New(t)
	s.PRs["acme/shop#7"] = &PR{HeadSHA: "abc123", BaseRef: "main", HeadRef: "x"}
	var jobs []map[string]any
	for i := 0; i < 3; i++ {
		jobs = append(jobs, map[string]any{"id": 100 + i, "name": "test", "conclusion": "failure"})
	}
	s.SetJobs("acme/shop", 9, jobs)
	s.SetJobLog("acme/shop", 101, "line\n##[error]boom\n")
	ctx, gh := context.Background(), client(t, s)

	page1, resp, err := gh.Actions.ListWorkflowJobs(ctx, "acme", "shop", 9, &github.ListWorkflowJobsOptions{ListOptions: github.ListOptions{PerPage: 2}})
	if err != nil || page1.GetTotalCount() != 3 || len(page1.Jobs) != 2 || resp.NextPage != 2 {
		t.Fatalf("jobs page 1: %+v next %d %v", page1, resp.NextPage, err)
	}
	if _, _, err := gh.Actions.ListWorkflowJobs(ctx, "acme", "shop", 10, nil); err == nil {
		t.Error("an unknown run must answer 404")
	}

	u, resp, err := gh.Actions.GetWorkflowJobLogs(ctx, "acme", "shop", 101, 0)
	if err != nil || resp.StatusCode != http.StatusFound {
		t.Fatalf("logs: %v %v", resp, err)
	}
	// The download with the token is refused; without it, it serves the log.
	req, _ := http.NewRequest(http.MethodGet, u.String(), nil)
	req.Header.Set("Authorization", "token installation-token")
	if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != http.StatusBadRequest {
		t.Errorf("a download with the token: %v %v", r, err)
	}
	r, err := http.Get(u.String())
	if err != nil || r.StatusCode != 200 {
		t.Fatalf("download: %v %v", r, err)
	}
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if string(body) != "line\n##[error]boom\n" || s.LogDownloads()[101] != 1 {
		t.Errorf("log %q, downloads %v", body, s.LogDownloads())
	}
	if _, _, err := gh.Actions.GetWorkflowJobLogs(ctx, "acme", "shop", 555, 0); err == nil {
		t.Error("the logs of an unknown job must answer 404")
	}

	id := s.AddCheckRun("acme/shop", CheckRun{Name: "lint", HeadSHA: "abc123", Annotations: []Annotation{{Path: "a.go", StartLine: 1, EndLine: 1, Level: "failure", Message: "E1: bad"}}})
	anns, _, err := gh.Checks.ListCheckRunAnnotations(ctx, "acme", "shop", id, nil)
	if err != nil || len(anns) != 1 || anns[0].GetMessage() != "E1: bad" || anns[0].GetAnnotationLevel() != "failure" {
		t.Errorf("annotations %+v %v", anns, err)
	}
	if _, _, err := gh.Checks.ListCheckRunAnnotations(ctx, "acme", "shop", id+99, nil); err == nil {
		t.Error("an unknown check run's annotations must answer 404")
	}

	prs, _, err := gh.PullRequests.ListPullRequestsWithCommit(ctx, "acme", "shop", "abc123", nil)
	if err != nil || len(prs) != 1 || prs[0].GetNumber() != 7 {
		t.Errorf("pulls of the head: %+v %v", prs, err)
	}
	if _, _, err := gh.PullRequests.ListPullRequestsWithCommit(ctx, "acme", "shop", "nope", nil); err == nil {
		t.Error("an unknown commit must answer 422")
	}
	if u := s.Unknown(); len(u) != 0 {
		t.Errorf("requests matching no GitHub operation: %+v", u)
	}
}

// Issues the bot opened can be closed with a state reason, as GitHub's issues/update does:
// closing without a reason is "completed", an unknown state or reason is a 422, and an unknown
// issue a 404.
func TestIssueUpdate(t *testing.T) {
	s := New(t)
	ctx, gh := context.Background(), client(t, s)
	is, _, err := gh.Issues.Create(ctx, "acme", "shop", &github.IssueRequest{Title: github.String("Security alert")})
	if err != nil || is.GetState() != "open" {
		t.Fatalf("create: %+v %v", is, err)
	}
	n := is.GetNumber()
	got, _, err := gh.Issues.Edit(ctx, "acme", "shop", n, &github.IssueRequest{State: github.String("closed")})
	if err != nil || got.GetState() != "closed" || got.GetStateReason() != "completed" {
		t.Errorf("close: %+v %v", got, err)
	}
	got, _, err = gh.Issues.Edit(ctx, "acme", "shop", n, &github.IssueRequest{State: github.String("closed"), StateReason: github.String("not_planned")})
	if err != nil || got.GetStateReason() != "not_planned" {
		t.Errorf("close as not planned: %+v %v", got, err)
	}
	for _, req := range []*github.IssueRequest{{State: github.String("shut")}, {StateReason: github.String("because")}} {
		var er *github.ErrorResponse
		if _, resp, err := gh.Issues.Edit(ctx, "acme", "shop", n, req); resp == nil || resp.StatusCode != 422 || !errors.As(err, &er) || len(er.Errors) != 1 {
			t.Errorf("an invalid edit %+v: %v", req, err)
		}
	}
	if _, resp, err := gh.Issues.Edit(ctx, "acme", "shop", n+50, &github.IssueRequest{State: github.String("closed")}); err == nil || resp.StatusCode != 404 {
		t.Errorf("an unknown issue: %v", err)
	}
}
