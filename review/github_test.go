package review

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

func ghClient(t testing.TB, srv *githubtest.Server) *github.Client {
	t.Helper()
	c := github.NewClient(nil).WithAuthToken("ghs_test")
	u, err := url.Parse(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	c.BaseURL = u
	return c
}

var examplePR = PullRequest{Owner: "acme", Repo: "shop", Number: 7}

func seedExamplePR(t testing.TB, srv *githubtest.Server) {
	t.Helper()
	diff, err := os.ReadFile(filepath.Join("..", "examples", "admin-export.diff"))
	if err != nil {
		t.Fatal(err)
	}
	srv.PRs["acme/shop#7"] = &githubtest.PR{Title: "Add admin user export", Body: "CSV export for admins.", BaseRef: "main", HeadRef: "export", HeadSHA: "abc123", Diff: string(diff)}
	srv.Contents["acme/shop@abc123:cmd/server/main.go"] = "package main\n\nfunc main() {}\n"
}

func TestReadPullRequest(t *testing.T) {
	srv := githubtest.New(t)
	seedExamplePR(t, srv)
	c, err := ReadPullRequest(context.Background(), ghClient(t, srv), examplePR, nil, []string{"go.mod"}, DefaultMaxDiffBytes)
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "Add admin user export" || c.HeadSHA != "abc123" || c.HasPath("go.mod") || len(c.Files) != 3 {
		t.Errorf("change = %q %q files %d (go.mod must be ignored before anything is read)", c.Title, c.HeadSHA, len(c.Files))
	}
	if f := c.File("cmd/server/main.go"); f == nil || !f.HasContent || string(f.Content) != "package main\n\nfunc main() {}\n" {
		t.Errorf("head content of the modified Go file was not read")
	}
	seen := map[string]int{}
	for _, call := range srv.Calls() {
		seen[call.Method+" "+call.Path+" "+call.Accept]++
		if call.Operation == "" {
			t.Errorf("%s %s is not a GitHub operation", call.Method, call.Path)
		}
	}
	for k, n := range seen {
		if n > 1 {
			t.Errorf("%s read %d times", k, n)
		}
	}
	// New files carry their content in the diff: no contents call for them.
	if seen["GET /repos/acme/shop/contents/internal/export/users.go application/vnd.github.v3+json"] != 0 {
		t.Error("the content of a new file was fetched though the diff holds it")
	}
}

// The base/head comparison rebuilds a file's base from its head content and hunks: the head
// content of a modified Python or JavaScript file is read as a Go file's is, and a Markdown
// file's is not.
func TestReadPullRequestReadsContentForComparison(t *testing.T) {
	srv := githubtest.New(t)
	diff := "diff --git a/app/files.py b/app/files.py\n--- a/app/files.py\n+++ b/app/files.py\n@@ -1,4 +1,2 @@\n def read(name):\n-    if \"..\" in name:\n-        raise ValueError(name)\n     return open(name).read()\n" +
		"diff --git a/lib/a.js b/lib/a.js\n--- a/lib/a.js\n+++ b/lib/a.js\n@@ -1 +1 @@\n-module.exports = 1;\n+module.exports = 2;\n" +
		"diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-a\n+b\n"
	srv.PRs["acme/shop#9"] = &githubtest.PR{Title: "Read files", HeadSHA: "h9", Diff: diff}
	srv.Contents["acme/shop@h9:app/files.py"] = "def read(name):\n    return open(name).read()\n"
	srv.Contents["acme/shop@h9:lib/a.js"] = "module.exports = 2;\n"
	c, err := ReadPullRequest(context.Background(), ghClient(t, srv), PullRequest{"acme", "shop", 9}, nil, nil, DefaultMaxDiffBytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"app/files.py", "lib/a.js"} {
		if f := c.File(p); f == nil || !f.HasContent {
			t.Errorf("%s: head content not read", p)
		}
	}
	for _, call := range srv.Calls() {
		if strings.HasSuffix(call.Path, "/contents/README.md") {
			t.Error("the content of a Markdown file was fetched; no analyzer reads it")
		}
	}
}

func TestReadPullRequestFallsBackToFiles(t *testing.T) {
	srv := githubtest.New(t)
	pr := &githubtest.PR{Title: "Huge", HeadSHA: "h1", DiffTooLarge: true}
	for i := 0; i < 150; i++ {
		pr.Files = append(pr.Files, map[string]any{"filename": fmt.Sprintf("docs/p%03d.md", i), "status": "added", "patch": "@@ -0,0 +1,1 @@\n+page"})
	}
	pr.Files = append(pr.Files, map[string]any{"filename": "logo.png", "status": "added"})
	srv.PRs["acme/shop#8"] = pr
	c, err := ReadPullRequest(context.Background(), ghClient(t, srv), PullRequest{"acme", "shop", 8}, nil, nil, DefaultMaxDiffBytes)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Files) != 150 || !strings.Contains(strings.Join(c.Notes, ";"), "logo.png: no patch") {
		t.Errorf("files = %d, notes %v; want 150 text files from two pages and a note for the binary", len(c.Files), c.Notes)
	}
	pages := 0
	for _, call := range srv.Calls() {
		if strings.HasSuffix(call.Path, "/files") {
			pages++
		}
	}
	if pages != 2 {
		t.Errorf("files pages read = %d, want 2 (following the Link header)", pages)
	}
}

func TestPublisherEditsInPlace(t *testing.T) {
	srv := githubtest.New(t)
	// 120 comments by people before the bot's: the marker is on the second page.
	for i := 0; i < 120; i++ {
		srv.AddComment("acme/shop#7", "alice", fmt.Sprintf("comment %d", i))
	}
	// A person's comment that forges the marker is left alone.
	srv.AddComment("acme/shop#7", "mallory", render.TranscriptMarker+"\nforged")
	old := srv.AddComment("acme/shop#7", "debatebot[bot]", render.TranscriptMarker+"\nold transcript")
	ctx := context.Background()
	p := NewPublisher(ghClient(t, srv), examplePR)
	p.Bot = "debatebot[bot]"
	for i := 0; i < 3; i++ {
		if err := p.Upsert(ctx, render.TranscriptMarker, fmt.Sprintf("transcript v%d", i)); err != nil {
			t.Fatal(err)
		}
		if err := p.Upsert(ctx, render.DecisionMarker, fmt.Sprintf("decision v%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	var transcripts, decisions []githubtest.Comment
	for _, c := range srv.CommentsOn("acme/shop#7") {
		switch {
		case strings.HasPrefix(c.Body, render.TranscriptMarker) && c.User != "mallory":
			transcripts = append(transcripts, c)
		case strings.HasPrefix(c.Body, render.DecisionMarker):
			decisions = append(decisions, c)
		}
	}
	if len(transcripts) != 1 || transcripts[0].ID != old || !strings.HasSuffix(transcripts[0].Body, "transcript v2") {
		t.Errorf("transcript comments = %+v; want the old one edited to v2", transcripts)
	}
	if len(decisions) != 1 || !strings.HasSuffix(decisions[0].Body, "decision v2") {
		t.Errorf("decision comments = %+v; want one, edited to v2", decisions)
	}
	lists := 0
	for _, c := range srv.Calls() {
		if c.Method == "GET" && strings.HasSuffix(c.Path, "/comments") {
			lists++
		}
	}
	if lists != 2 {
		t.Errorf("comment pages listed = %d, want 2 (once per publisher, both pages)", lists)
	}
}

func TestPublisherChecksAndSizes(t *testing.T) {
	srv := githubtest.New(t)
	seedExamplePR(t, srv)
	ctx := context.Background()
	gh := ghClient(t, srv)
	c, err := ReadPullRequest(ctx, gh, examplePR, nil, nil, DefaultMaxDiffBytes)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := (&Debate{Change: c, Repository: "acme/shop", PRNumber: 7, Trigger: "pull_request.opened", Protocol: toulmin.Standard(), Clock: fixedClock()}).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPublisher(gh, examplePR)
	if err := p.StartCheck(ctx, c.HeadSHA); err != nil {
		t.Fatal(err)
	}
	if err := p.FinishCheck(ctx, tr); err != nil {
		t.Fatal(err)
	}
	runs := srv.Checks("acme/shop")
	if len(runs) != 1 || runs[0].Name != "debatebot" || runs[0].HeadSHA != "abc123" || runs[0].Status != "completed" || runs[0].Conclusion != "action_required" {
		t.Errorf("check runs = %+v, want one completed with action_required for request_changes", runs)
	}
	for d, want := range map[voting.Option]string{voting.Approve: "success", voting.ApproveWithChanges: "neutral", voting.RequestChanges: "action_required", voting.Escalate: "action_required"} {
		if got := Conclusion(d); got != want {
			t.Errorf("Conclusion(%s) = %s, want %s", d, got, want)
		}
	}
	dc, err := render.DecisionComment(tr)
	if err != nil || !strings.HasPrefix(dc, render.DecisionMarker) || !strings.Contains(dc, "repository: acme/shop") || !strings.Contains(dc, "pr_number: 7") {
		t.Errorf("decision comment = %q (%v)", dc, err)
	}
	long := strings.Repeat("line of transcript\n", 5000) + "```yaml\n" + strings.Repeat("x: 1\n", 3000) + "```\n"
	fit := render.FitComment(long, render.MaxCommentChars, "https://debatebot.example/debates/deb-1")
	if len(fit) > render.MaxCommentChars || strings.Count(fit, "```")%2 != 0 || !strings.Contains(fit, "debates/deb-1") {
		t.Errorf("FitComment: %d chars, fences balanced %v", len(fit), strings.Count(fit, "```")%2 == 0)
	}
}

func TestGitHubFailuresAreErrors(t *testing.T) {
	srv := githubtest.New(t)
	seedExamplePR(t, srv)
	srv.Fail("GET", "/repos/acme/shop/pulls/7", 502, 1)
	_, err := ReadPullRequest(context.Background(), ghClient(t, srv), examplePR, nil, nil, DefaultMaxDiffBytes)
	if err == nil || !strings.Contains(err.Error(), "failed to get pull request acme/shop#7") || !strings.Contains(err.Error(), "502") {
		t.Errorf("err = %v, want the 502 wrapped with the pull request", err)
	}
}
