package publish

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/toulmin"
)

// The debates these tests publish are run, and the fake GitHub is seeded, as review's tests do
// (review's debate_test.go, github_test.go and helpers_test.go).

// Credentials that look real to the detector (and are not).
const (
	testAWSKey      = "AKIAZ5XQ3R7NP2LWK4TB"
	testGitHubToken = "ghp_8kZq2Lw9XbT4mR7vN1cY6pH3sJ0dF5gA2eUx"
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

var examplePR = review.PullRequest{Owner: "acme", Repo: "shop", Number: 7}

func seedExamplePR(t testing.TB, srv *githubtest.Server) {
	t.Helper()
	diff, err := os.ReadFile(filepath.Join("..", "..", "examples", "admin-export.diff"))
	if err != nil {
		t.Fatal(err)
	}
	srv.PRs["acme/shop#7"] = &githubtest.PR{Title: "Add admin user export", Body: "CSV export for admins.", BaseRef: "main", HeadRef: "export", HeadSHA: "abc123", Diff: string(diff)}
	srv.Contents["acme/shop@abc123:cmd/server/main.go"] = "package main\n\nfunc main() {}\n"
}

func fixedClock() func() time.Time {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var n atomic.Int64
	return func() time.Time { return t0.Add(time.Duration(n.Add(1)) * 100 * time.Millisecond) }
}

func readChange(t testing.TB, path string) *change.Change {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := review.ReadDiff(f, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func runDebate(t testing.TB, c *change.Change, protocol string) *toulmin.Transcript {
	t.Helper()
	p, err := toulmin.Named(protocol)
	if err != nil {
		t.Fatal(err)
	}
	d := &review.Debate{Change: c, Protocol: p, Clock: fixedClock()}
	tr, err := d.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// newFileDiff is the git diff that adds a file with the given content.
func newFileDiff(path, content string) string {
	content = strings.TrimPrefix(content, "\n")
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", path, path, path, len(lines))
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// changeOf parses diffs of new files given as path -> content.
func changeOf(t testing.TB, files map[string]string) *change.Change {
	t.Helper()
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		b.WriteString(newFileDiff(p, files[p]))
	}
	c, err := review.ParseDiff([]byte(b.String()), "test.diff")
	if err != nil {
		t.Fatalf("ParseDiff: %v", err)
	}
	return c
}

func mustParse(t testing.TB, diff string) *change.Change {
	t.Helper()
	c, err := review.ParseDiff([]byte(strings.TrimPrefix(diff, "\n")), "test.diff")
	if err != nil {
		t.Fatalf("ParseDiff: %v", err)
	}
	return c
}

func gather(t testing.TB, c *change.Change) []toulmin.Evidence {
	t.Helper()
	ev, err := scan.Gather(context.Background(), c, evidence.DefaultAnalyzers())
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	return ev
}

func dump(ev []toulmin.Evidence) string {
	var b strings.Builder
	for _, e := range ev {
		fmt.Fprintf(&b, "  %s %s %s: %s\n", e.Severity, e.Rule, e.Location(), e.Message)
	}
	return b.String()
}
