package handlers

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review/pull/pulltest"
)

// A command's configuration is the pull request's base branch's, or the default branch's when
// the command was made on an issue (GitHub's 404 for the pull request); a broken file is judged
// by the defaults, and /help says why; GitHub's other failures are errors.
func TestCommandConfigThroughPlainFake(t *testing.T) {
	ctx := context.Background()
	gh := newFakeGitHub()
	gh.Trees = map[string]map[string]string{
		"main": {config.RepoPath: "command_permission: admin\n"},
		"":     {config.RepoPath: "command_permission: triage\n"},
	}
	gh.Meta = &github.PullRequest{Number: github.Int(7), Base: &github.PullRequestBranch{Ref: github.String("main")}}
	r := &Runner{}
	job := &Job{PR: shopPR, Requester: "alice"}

	text, err := r.helpText(ctx, gh, job)
	if err != nil || !strings.Contains(text, "on this pull request") || !strings.Contains(text, "`admin` permission or more") {
		t.Errorf("on a pull request (%v):\n%s", err, text)
	}
	if gh.Count("File "+config.RepoPath+"@main") != 1 {
		t.Errorf("requests %q, want the configuration read from the base branch", gh.Calls())
	}

	gh.Meta = nil // an issue
	if text, err = r.helpText(ctx, gh, job); err != nil || !strings.Contains(text, "on this issue") || !strings.Contains(text, "`triage` permission or more") {
		t.Errorf("on an issue (%v):\n%s", err, text)
	}
	if repo, err := r.commandConfig(ctx, gh, job); err != nil || repo.CommandPermission != "triage" {
		t.Errorf("commandConfig on an issue: %v, %v", repo, err)
	}

	gh.Trees[""][config.RepoPath] = "command_permission: everyone\n"
	if text, err = r.helpText(ctx, gh, job); err != nil || !strings.Contains(text, "`"+config.DefaultCommandPermission+"` permission or more") || !strings.Contains(text, "everyone") {
		t.Errorf("a broken configuration (%v): want the defaults and the problem named:\n%s", err, text)
	}

	boom := pulltest.Status(http.StatusBadGateway, "bad gateway")
	gh.Errors = map[string]error{"PullRequest": boom}
	if _, err := r.helpText(ctx, gh, job); !errors.Is(err, boom) || !strings.Contains(err.Error(), "acme/shop#7") {
		t.Errorf("GitHub failing: %v, want its error with the pull request named", err)
	}
}
