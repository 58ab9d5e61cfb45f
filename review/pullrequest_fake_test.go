package review_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/pull/pulltest"
)

// The tests of this file read pull requests from the plain fake (review/pull/pulltest); the
// tests against the HTTP-level fake cover the adapter over the real client.

var fakePR = review.PullRequest{Owner: "acme", Repo: "shop", Number: 7}

// exampleFake is the example pull request: three changed files and go.mod, one modified Go file
// whose head content the analyzers need.
func exampleFake(t *testing.T) *pulltest.Fake {
	t.Helper()
	diff, err := os.ReadFile(filepath.Join("..", "examples", "admin-export.diff"))
	if err != nil {
		t.Fatal(err)
	}
	return &pulltest.Fake{
		Meta: &github.PullRequest{
			Title: github.String("Add admin user export"), Body: github.String("CSV export for admins."),
			Base: &github.PullRequestBranch{Ref: github.String("main")},
			Head: &github.PullRequestBranch{Ref: github.String("export"), SHA: github.String("abc123")},
		},
		Diff:    string(diff),
		Commits: []string{"Add the export", "Fix the header"},
		Trees:   map[string]map[string]string{"abc123": {"cmd/server/main.go": "package main\n\nfunc main() {}\n"}},
	}
}

func TestReadPullRequestFromFake(t *testing.T) {
	gh := exampleFake(t)
	c, err := review.ReadPullRequest(context.Background(), gh, fakePR, nil, []string{"go.mod"}, review.DefaultMaxDiffBytes)
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "Add admin user export" || c.Body != "CSV export for admins." || c.BaseRef != "main" || c.HeadRef != "export" || c.HeadSHA != "abc123" {
		t.Errorf("change = %q %q %q %q %q, want the pull request's metadata", c.Title, c.Body, c.BaseRef, c.HeadRef, c.HeadSHA)
	}
	if c.HasPath("go.mod") || len(c.Files) != 3 || c.Source != "acme/shop#7" {
		t.Errorf("files = %d (go.mod %v), source %q; want 3 without go.mod", len(c.Files), c.HasPath("go.mod"), c.Source)
	}
	if f := c.File("cmd/server/main.go"); f == nil || !f.HasContent || string(f.Content) != "package main\n\nfunc main() {}\n" {
		t.Error("head content of the modified Go file was not read")
	}
	if !slices.Equal(c.Commits, []string{"Add the export", "Fix the header"}) {
		t.Errorf("commits = %q", c.Commits)
	}
	want := []string{"PullRequest acme/shop#7", "PullDiff acme/shop#7", "PullCommitMessages page=0", "File cmd/server/main.go@abc123"}
	if got := gh.Calls(); !slices.Equal(got, want) {
		t.Errorf("requests = %q, want each resource once, no content of a new file or an ignored one: %q", got, want)
	}
}

// Metadata the caller already read is not read again.
func TestReadPullRequestTakesMeta(t *testing.T) {
	gh := exampleFake(t)
	meta := gh.Meta
	gh.Meta = nil
	if _, err := review.ReadPullRequest(context.Background(), gh, fakePR, meta, nil, review.DefaultMaxDiffBytes); err != nil {
		t.Fatal(err)
	}
	if n := gh.Count("PullRequest "); n != 0 {
		t.Errorf("the pull request was read %d times though the caller gave it", n)
	}
}

// A diff GitHub refuses (406, 422) or one over the limit is rebuilt from the files, page by page;
// a file without a patch is left out with a note.
func TestReadPullRequestFallsBackToFilesFromFake(t *testing.T) {
	for name, tc := range map[string]struct {
		diffErr error
		maxDiff int64
	}{
		"406":        {pulltest.Status(http.StatusNotAcceptable, "diff too large"), review.DefaultMaxDiffBytes},
		"422":        {pulltest.Status(http.StatusUnprocessableEntity, "too large"), review.DefaultMaxDiffBytes},
		"over limit": {nil, 10},
	} {
		t.Run(name, func(t *testing.T) {
			gh := exampleFake(t)
			gh.Diff = strings.Repeat("x", 100)
			gh.Errors = map[string]error{"PullDiff": tc.diffErr}
			gh.PerPage = 2
			for i := range 5 {
				gh.Files = append(gh.Files, &github.CommitFile{Filename: github.String(fmt.Sprintf("docs/p%d.md", i)), Status: github.String("added"), Patch: github.String("@@ -0,0 +1,1 @@\n+page")})
			}
			gh.Files = append(gh.Files, &github.CommitFile{Filename: github.String("logo.png"), Status: github.String("added")})
			c, err := review.ReadPullRequest(context.Background(), gh, fakePR, nil, nil, tc.maxDiff)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Files) != 5 || !strings.Contains(strings.Join(c.Notes, ";"), "logo.png: no patch") {
				t.Errorf("files = %d, notes %q; want 5 text files and a note for the binary", len(c.Files), c.Notes)
			}
			if n := gh.Count("PullFiles "); n != 3 {
				t.Errorf("files pages read = %d, want 3", n)
			}
		})
	}
}

func TestReadPullRequestErrorsFromFake(t *testing.T) {
	for name, tc := range map[string]struct {
		errors map[string]error
		want   string
	}{
		"metadata": {map[string]error{"PullRequest": pulltest.Status(http.StatusBadGateway, "Bad Gateway")}, "failed to get pull request acme/shop#7"},
		"diff":     {map[string]error{"PullDiff": pulltest.Status(http.StatusInternalServerError, "boom")}, "failed to get the diff of acme/shop#7"},
		"files": {map[string]error{
			"PullDiff":  pulltest.Status(http.StatusNotAcceptable, "diff too large"),
			"PullFiles": pulltest.Status(http.StatusInternalServerError, "boom"),
		}, "failed to list the files of acme/shop#7"},
	} {
		t.Run(name, func(t *testing.T) {
			gh := exampleFake(t)
			gh.Errors = tc.errors
			_, err := review.ReadPullRequest(context.Background(), gh, fakePR, nil, nil, review.DefaultMaxDiffBytes)
			var er *github.ErrorResponse
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &er) {
				t.Errorf("err = %v, want GitHub's error wrapped with %q", err, tc.want)
			}
		})
	}
}

// Commit messages are read page by page up to GitHub's 250; when they cannot be read, a note says
// so and the change is still read.
func TestReadCommitMessagesFromFake(t *testing.T) {
	gh := &pulltest.Fake{PerPage: 100}
	for i := range 300 {
		gh.Commits = append(gh.Commits, fmt.Sprintf("commit %d", i))
	}
	c := &change.Change{}
	review.ReadCommitMessages(context.Background(), gh, fakePR, c)
	if len(c.Commits) != 300 || gh.Count("PullCommitMessages ") != 3 || len(c.Notes) != 0 {
		t.Errorf("commits = %d in %d pages, notes %q; want the three pages GitHub lists", len(c.Commits), gh.Count("PullCommitMessages "), c.Notes)
	}
	gh = &pulltest.Fake{Errors: map[string]error{"PullCommitMessages": errors.New("boom")}}
	c = &change.Change{}
	review.ReadCommitMessages(context.Background(), gh, fakePR, c)
	if len(c.Commits) != 0 || len(c.Notes) != 1 || c.Notes[0] != "commit messages unavailable: boom" {
		t.Errorf("commits %q, notes %q; want a note", c.Commits, c.Notes)
	}
}

// Only the files an analyzer reads whole are read; a file that cannot be read or decoded is
// analysed from its diff, with a note saying which.
func TestFillContentsFromFake(t *testing.T) {
	diff := "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-package a\n+package a // x\n" +
		"diff --git a/b.go b/b.go\n--- a/b.go\n+++ b/b.go\n@@ -1 +1 @@\n-package b\n+package b // x\n" +
		"diff --git a/c.py b/c.py\n--- a/c.py\n+++ b/c.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n" +
		"diff --git a/d.go b/d.go\ndeleted file mode 100644\n--- a/d.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-package d\n" +
		"diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-a\n+b\n"
	c, err := review.ParseDiff([]byte(diff), "test")
	if err != nil {
		t.Fatal(err)
	}
	c.HeadSHA = "h1"
	gh := &pulltest.Fake{
		Trees:  map[string]map[string]string{"h1": {"a.go": "package a // x\n", "c.py": "x = 2\n"}},
		Errors: map[string]error{"File c.py@h1": &review.DecodeError{Err: errors.New("illegal base64 data")}},
	}
	review.FillContents(context.Background(), gh, fakePR, c)
	if f := c.File("a.go"); !f.HasContent || string(f.Content) != "package a // x\n" {
		t.Errorf("a.go: content %q", f.Content)
	}
	wantNotes := []string{"b.go: head content unavailable, analysed from its diff only", "c.py: head content undecodable, analysed from its diff only"}
	if !slices.Equal(c.Notes, wantNotes) {
		t.Errorf("notes = %q, want %q", c.Notes, wantNotes)
	}
	if got := gh.Calls(); !slices.Equal(got, []string{"File a.go@h1", "File b.go@h1", "File c.py@h1"}) {
		t.Errorf("requests = %q; a deleted file and a Markdown file are not read", got)
	}
}

// A head file past DefaultMaxFileBytes is not kept: it is analysed from its diff, as a git
// range's is, and the files after it are still read.
func TestFillContentsBoundsEachFile(t *testing.T) {
	diff := "diff --git a/big.go b/big.go\n--- a/big.go\n+++ b/big.go\n@@ -1 +1 @@\n-package big\n+package big // x\n" +
		"diff --git a/small.go b/small.go\n--- a/small.go\n+++ b/small.go\n@@ -1 +1 @@\n-package small\n+package small // x\n"
	c, err := review.ParseDiff([]byte(diff), "test")
	if err != nil {
		t.Fatal(err)
	}
	c.HeadSHA = "h1"
	gh := &pulltest.Fake{Trees: map[string]map[string]string{"h1": {
		"big.go":   "package big // x\n" + strings.Repeat("// padding\n", review.DefaultMaxFileBytes/11+1),
		"small.go": "package small // x\n",
	}}}
	review.FillContents(context.Background(), gh, fakePR, c)
	if f := c.File("big.go"); f.HasContent || f.Content != nil {
		t.Errorf("big.go kept %d bytes past the bound of %d", len(f.Content), review.DefaultMaxFileBytes)
	}
	if f := c.File("small.go"); !f.HasContent {
		t.Error("small.go was not read after the large file")
	}
	want := []string{fmt.Sprintf("big.go: larger than %d KiB, analysed from its diff only", review.DefaultMaxFileBytes>>10)}
	if !slices.Equal(c.Notes, want) {
		t.Errorf("notes = %q, want %q", c.Notes, want)
	}
}

// What changed since the debated head, by GitHub's comparison; a head that does not descend from
// it (diverged, or a 404 after a force push) is no error, other failures are.
func TestReadSinceFromFake(t *testing.T) {
	file := &github.CommitFile{Filename: github.String("a.go"), Status: github.String("modified"), Patch: github.String("@@ -1 +1 @@\n-package a\n+package a // x")}
	gh := &pulltest.Fake{
		Comparisons: map[string]pulltest.Comparison{
			"abc123...def456": {Status: "ahead", Files: []*github.CommitFile{file}},
			"old999...abc123": {Status: "diverged", Files: []*github.CommitFile{file}},
			"same...same2":    {Status: "ahead"},
		},
		Errors: map[string]error{
			"Compare orphan1...abc123": pulltest.Status(http.StatusNotFound, "No common ancestor between orphan1 and abc123."),
			"Compare bad...abc123":     pulltest.Status(http.StatusInternalServerError, "boom"),
		},
	}
	for _, tc := range []struct {
		old, new string
		ok       bool
	}{
		{"abc123", "def456", true},
		{"old999", "abc123", false},
		{"gone000", "abc123", false},
		{"orphan1", "abc123", false},
		{"same", "same2", false},
	} {
		c, ok, err := review.ReadSince(context.Background(), gh, fakePR, tc.old, tc.new)
		if err != nil || ok != tc.ok || (ok && (len(c.Files) != 1 || c.HeadSHA != tc.new || c.Source != "acme/shop#7 abc123...def456")) {
			t.Errorf("ReadSince(%s...%s) = %v, %v, %v; want ok=%v and no error", tc.old, tc.new, c, ok, err, tc.ok)
		}
	}
	if _, _, err := review.ReadSince(context.Background(), gh, fakePR, "bad", "abc123"); err == nil || !strings.Contains(err.Error(), "failed to compare bad...abc123 on acme/shop#7") {
		t.Errorf("a 500 from the compare API: err = %v", err)
	}
}

// The adapter and the fake implement the interfaces of review.
var (
	_ review.PullRequestReader = (*review.GitHub)(nil)
	_ review.Comparer          = (*review.GitHub)(nil)
	_ review.TreeReader        = (*review.GitHub)(nil)
	_ review.PullRequestReader = (*pulltest.Fake)(nil)
	_ review.Comparer          = (*pulltest.Fake)(nil)
	_ review.TreeReader        = (*pulltest.Fake)(nil)
)
