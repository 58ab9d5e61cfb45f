package reviewtest

import (
	"net/url"
	"os"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/githubtest"
)

// Credentials that look real to the detector (and are not).
const (
	AWSKey      = "AKIAZ5XQ3R7NP2LWK4TB"
	GitHubToken = "ghp_8kZq2Lw9XbT4mR7vN1cY6pH3sJ0dF5gA2eUx"
)

// ExamplePR is the pull request SeedExamplePR puts on the fake GitHub.
var ExamplePR = review.PullRequest{Owner: "acme", Repo: "shop", Number: 7}

// GitHubClient is a GitHub client of an installation that talks to the fake GitHub srv.
func GitHubClient(t testing.TB, srv *githubtest.Server) *github.Client {
	t.Helper()
	c := github.NewClient(nil).WithAuthToken("ghs_test")
	u, err := url.Parse(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	c.BaseURL = u
	return c
}

// SeedExamplePR puts ExamplePR on the fake GitHub srv: the bundled example diff (diffPath, the
// path of examples/admin-export.diff from the test's folder) and the head content of one of its
// Go files.
func SeedExamplePR(t testing.TB, srv *githubtest.Server, diffPath string) {
	t.Helper()
	diff, err := os.ReadFile(diffPath)
	if err != nil {
		t.Fatal(err)
	}
	srv.PRs["acme/shop#7"] = &githubtest.PR{Title: "Add admin user export", Body: "CSV export for admins.", BaseRef: "main", HeadRef: "export", HeadSHA: "abc123", Diff: string(diff)}
	srv.Contents["acme/shop@abc123:cmd/server/main.go"] = "package main\n\nfunc main() {}\n"
}
