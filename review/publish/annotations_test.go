package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/reviewtest"
	"github.com/debatebot/debatebot/voting"

	"github.com/google/go-github/v62/github"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/toulmin"
)

func TestAnnotationsBatchedByFifty(t *testing.T) {
	srv := githubtest.New(t)
	ctx := context.Background()
	gh := reviewtest.GitHubClient(t, srv)
	var ev []toulmin.Evidence
	sevs := []voting.Severity{voting.SeverityCritical, voting.SeverityMedium, voting.SeverityLow}
	for i := 0; i < 123; i++ {
		ev = append(ev, toulmin.Evidence{ID: fmt.Sprintf("E%d", i+1), Rule: rules.RuleTodo, Severity: sevs[i%3], Path: fmt.Sprintf("f%03d.go", i), Line: i % 7, Message: fmt.Sprintf("finding %d", i)})
	}
	ev = append(ev, toulmin.Evidence{ID: "E124", Rule: toulmin.RulePromptInjection, Severity: voting.SeverityHigh, Message: "the title addresses the reviewer"})
	tr := &toulmin.Transcript{DebateID: "deb-1", Evidence: ev}
	tr.Record.HeadSHA, tr.Record.Decision = "abc123", "approve_with_changes"
	p := NewPublisher(gh, reviewtest.ExamplePR)
	if err := p.StartCheck(ctx, "abc123"); err != nil {
		t.Fatal(err)
	}
	// The third request fails: the retry goes on with the rest, concluding once and repeating
	// nothing.
	n := 0
	srv.FailIf(func(c githubtest.Call) bool {
		if c.Method == "PATCH" {
			n++
			return n == 3
		}
		return false
	}, 502, 1)
	if err := p.FinishCheck(ctx, tr); err == nil || !strings.Contains(err.Error(), "100 of 123 annotations sent") {
		t.Fatalf("FinishCheck = %v, want the failure of the third request", err)
	}
	if err := p.FinishCheck(ctx, tr); err != nil {
		t.Fatal(err)
	}
	runs := srv.Checks("acme/shop")
	if len(runs) != 1 || runs[0].Conclusion != "neutral" || runs[0].Conclusions != 1 {
		t.Fatalf("check runs %+v, want one concluded once", runs)
	}
	anns := runs[0].Annotations
	if len(anns) != 123 {
		t.Fatalf("%d annotations, want 123 (each finding with a file once)", len(anns))
	}
	for i, a := range anns {
		want := map[voting.Severity]string{voting.SeverityCritical: "failure", voting.SeverityMedium: "warning", voting.SeverityLow: "notice"}[sevs[i%3]]
		if a.Path != fmt.Sprintf("f%03d.go", i) || a.StartLine != max(i%7, 1) || a.EndLine != a.StartLine || a.Level != want ||
			!strings.HasPrefix(a.Message, fmt.Sprintf("finding %d", i)) || !strings.Contains(a.Title, "todo-added") {
			t.Errorf("annotation %d = %+v", i, a)
		}
	}
	for _, c := range srv.Calls() {
		if c.Method != "PATCH" {
			continue
		}
		var in github.UpdateCheckRunOptions
		if err := json.Unmarshal([]byte(c.Body), &in); err != nil {
			t.Fatalf("update body: %v", err)
		}
		if in.Output != nil && len(in.Output.Annotations) > githubtest.MaxAnnotations {
			t.Errorf("a request carried %d annotations", len(in.Output.Annotations))
		}
	}
}

func TestFakeGitHubRefusesMoreThanFiftyAnnotations(t *testing.T) {
	srv := githubtest.New(t)
	gh := reviewtest.GitHubClient(t, srv)
	ctx := context.Background()
	run, _, err := gh.Checks.CreateCheckRun(ctx, "acme", "shop", github.CreateCheckRunOptions{Name: "x", HeadSHA: "abc123"})
	if err != nil {
		t.Fatal(err)
	}
	var anns []*github.CheckRunAnnotation
	for i := 0; i < 51; i++ {
		anns = append(anns, &github.CheckRunAnnotation{Path: github.String("a.go"), StartLine: github.Int(1), EndLine: github.Int(1), AnnotationLevel: github.String("notice"), Message: github.String("m")})
	}
	_, _, err = gh.Checks.UpdateCheckRun(ctx, "acme", "shop", run.GetID(), github.UpdateCheckRunOptions{Name: "x", Output: &github.CheckRunOutput{Title: github.String("t"), Summary: github.String("s"), Annotations: anns}})
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != 422 || er.Message != "Invalid request.\n\nNo more than 50 items are allowed; 51 were supplied." {
		t.Errorf("51 annotations: %v, want GitHub's 422", err)
	}
	if got := srv.Checks("acme/shop")[0].Annotations; len(got) != 0 {
		t.Errorf("a refused request kept %d annotations", len(got))
	}
}
