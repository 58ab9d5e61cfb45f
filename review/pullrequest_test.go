package review_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/reviewtest"
)

func TestReadPullRequest(t *testing.T) {
	srv := githubtest.New(t)
	reviewtest.SeedExamplePR(t, srv, filepath.Join("..", "examples", "admin-export.diff"))
	c, err := review.ReadPullRequest(context.Background(), review.NewGitHub(reviewtest.GitHubClient(t, srv)), reviewtest.ExamplePR, nil, []string{"go.mod"}, review.DefaultMaxDiffBytes)
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
	c, err := review.ReadPullRequest(context.Background(), review.NewGitHub(reviewtest.GitHubClient(t, srv)), review.PullRequest{"acme", "shop", 9}, nil, nil, review.DefaultMaxDiffBytes)
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
	c, err := review.ReadPullRequest(context.Background(), review.NewGitHub(reviewtest.GitHubClient(t, srv)), review.PullRequest{"acme", "shop", 8}, nil, nil, review.DefaultMaxDiffBytes)
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

func TestGitHubFailuresAreErrors(t *testing.T) {
	srv := githubtest.New(t)
	reviewtest.SeedExamplePR(t, srv, filepath.Join("..", "examples", "admin-export.diff"))
	srv.Fail("GET", "/repos/acme/shop/pulls/7", 502, 1)
	_, err := review.ReadPullRequest(context.Background(), review.NewGitHub(reviewtest.GitHubClient(t, srv)), reviewtest.ExamplePR, nil, nil, review.DefaultMaxDiffBytes)
	if err == nil || !strings.Contains(err.Error(), "failed to get pull request acme/shop#7") || !strings.Contains(err.Error(), "502") {
		t.Errorf("err = %v, want the 502 wrapped with the pull request", err)
	}
}
