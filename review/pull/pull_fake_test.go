package pull_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/pull"
	"github.com/debatebot/debatebot/review/pull/pulltest"
)

// The tests of this file read GitHub through the plain fake (pulltest); the App's and the
// Action's end-to-end tests cover the adapter over the real client.

var pr = review.PullRequest{Owner: "acme", Repo: "shop", Number: 7}

// The role name wins (triage and maintain are seen as such); a custom role falls back to the
// legacy permission; someone who is not a collaborator (404) has none.
func TestPermissionFromFake(t *testing.T) {
	gh := &pulltest.Fake{Roles: map[string]pulltest.Role{
		"tri":    {Name: "triage", Permission: "read"},
		"maint":  {Name: "maintain", Permission: "write"},
		"custom": {Name: "auditor", Permission: "read"},
		"empty":  {Name: "auditor"},
	}}
	for user, want := range map[string]string{"tri": "triage", "maint": "maintain", "custom": "read", "empty": "none", "stranger": "none"} {
		got, err := pull.Permission(context.Background(), gh, pr, user)
		if err != nil || got != want {
			t.Errorf("Permission(%s) = %q, %v; want %q", user, got, err, want)
		}
	}
	gh.Errors = map[string]error{"CollaboratorPermission": pulltest.Status(http.StatusInternalServerError, "boom")}
	if _, err := pull.Permission(context.Background(), gh, pr, "tri"); err == nil || !strings.Contains(err.Error(), "failed to get the permission of tri on acme/shop") {
		t.Errorf("err = %v, want the failure wrapped", err)
	}
}

// The configuration is read at the ref given; a missing file is the defaults; a broken one, a
// failed read and an undecodable answer are errors.
func TestLoadRepoConfigFromFake(t *testing.T) {
	gh := &pulltest.Fake{Trees: map[string]map[string]string{
		"main":   {".github/debatebot.yml": "protocol: fast-track\n", "ci/debate.yml": "protocol: extended\n"},
		"broken": {".github/debatebot.yml": "protocol: [\n"},
		"":       {".github/debatebot.yml": "protocol: extended\n"},
	}}
	ctx := context.Background()
	if repo, err := pull.LoadRepoConfig(ctx, gh, pr, "main"); err != nil || repo.Protocol != "fast-track" {
		t.Errorf("at main: %v, %v; want fast-track", repo, err)
	}
	if repo, err := pull.LoadRepoConfig(ctx, gh, pr, ""); err != nil || repo.Protocol != "extended" {
		t.Errorf("at the default branch: %v, %v; want extended", repo, err)
	}
	if repo, err := pull.LoadRepoConfigAt(ctx, gh, pr, "main", "ci/debate.yml"); err != nil || repo.Protocol != "extended" {
		t.Errorf("at ci/debate.yml: %v, %v; want extended", repo, err)
	}
	if repo, err := pull.LoadRepoConfig(ctx, gh, pr, "other"); err != nil || repo.Protocol != config.Default().Protocol {
		t.Errorf("missing: %v, %v; want the defaults", repo, err)
	}
	var ce *config.Error
	if _, err := pull.LoadRepoConfig(ctx, gh, pr, "broken"); !errors.As(err, &ce) {
		t.Errorf("broken: err = %v, want a config.Error", err)
	}
	gh.Errors = map[string]error{"File .github/debatebot.yml@main": pulltest.Status(http.StatusBadGateway, "Bad Gateway")}
	if _, err := pull.LoadRepoConfig(ctx, gh, pr, "main"); err == nil || !strings.Contains(err.Error(), "failed to read .github/debatebot.yml of acme/shop") {
		t.Errorf("502: err = %v", err)
	}
	gh.Errors = map[string]error{"File .github/debatebot.yml@main": &review.DecodeError{Err: errors.New("illegal base64 data")}}
	if _, err := pull.LoadRepoConfig(ctx, gh, pr, "main"); err == nil || !strings.Contains(err.Error(), "failed to decode .github/debatebot.yml of acme/shop: illegal base64 data") {
		t.Errorf("undecodable: err = %v", err)
	}
}

// The merge base is GitHub's; the base branch's commit when GitHub names none or fails.
func TestMergeBaseFromFake(t *testing.T) {
	gh := &pulltest.Fake{
		MergeBases: map[string]string{"b1...h1": "m1"},
		Errors:     map[string]error{"MergeBase b3...h1": pulltest.Status(http.StatusInternalServerError, "boom")},
	}
	for base, want := range map[string]string{"b1": "m1", "b2": "b2", "b3": "b3"} {
		if got := pull.MergeBase(context.Background(), gh, pr, base, "h1"); got != want {
			t.Errorf("MergeBase(%s...h1) = %q, want %q", base, got, want)
		}
	}
}

// What changed since the debated head, without the ignored paths, with the pull request's
// description, commit messages and head contents; nothing when nothing is left.
func TestReadSinceFromFake(t *testing.T) {
	patch := func(name string) *github.CommitFile {
		return &github.CommitFile{Filename: github.String(name), Status: github.String("modified"), Patch: github.String("@@ -1 +1 @@\n-package a\n+package a // x")}
	}
	gh := &pulltest.Fake{
		Comparisons: map[string]pulltest.Comparison{
			"h1...h2": {Status: "ahead", Files: []*github.CommitFile{patch("a.go"), patch("vendor/v.go")}},
			"h1...h3": {Status: "ahead", Files: []*github.CommitFile{patch("vendor/v.go")}},
		},
		Commits: []string{"Fix a"},
		Trees:   map[string]map[string]string{"h2": {"a.go": "package a // x\n"}},
	}
	meta := &github.PullRequest{Title: github.String("Fix"), Body: github.String("body"), Base: &github.PullRequestBranch{Ref: github.String("main")}, Head: &github.PullRequestBranch{Ref: github.String("fix")}}
	c, err := pull.ReadSince(context.Background(), gh, pr, meta, "h1", "h2", []string{"vendor/**"})
	if err != nil || c == nil {
		t.Fatalf("ReadSince = %v, %v", c, err)
	}
	if len(c.Files) != 1 || c.Title != "Fix" || c.Body != "body" || c.BaseRef != "main" || c.HeadRef != "fix" || !slices.Equal(c.Commits, []string{"Fix a"}) {
		t.Errorf("change = %d files, %q %q %q %q, commits %q", len(c.Files), c.Title, c.Body, c.BaseRef, c.HeadRef, c.Commits)
	}
	if f := c.File("a.go"); f == nil || string(f.Content) != "package a // x\n" {
		t.Error("the head content of a.go was not read")
	}
	if c, err := pull.ReadSince(context.Background(), gh, pr, meta, "h1", "h3", []string{"vendor/**"}); err != nil || c != nil {
		t.Errorf("only ignored paths since: %v, %v; want nothing", c, err)
	}
	if c, err := pull.ReadSince(context.Background(), gh, pr, meta, "gone", "h2", nil); err != nil || c != nil {
		t.Errorf("after a force push: %v, %v; want nothing", c, err)
	}
}

// The adapter and the fake implement the interfaces of pull.
var (
	_ pull.ConfigReader = (*review.GitHub)(nil)
	_ pull.Permissions  = (*review.GitHub)(nil)
	_ pull.MergeBaser   = (*review.GitHub)(nil)
	_ pull.SinceReader  = (*review.GitHub)(nil)
	_ pull.ConfigReader = (*pulltest.Fake)(nil)
	_ pull.Permissions  = (*pulltest.Fake)(nil)
	_ pull.MergeBaser   = (*pulltest.Fake)(nil)
	_ pull.SinceReader  = (*pulltest.Fake)(nil)
)
