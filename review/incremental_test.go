package review_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/reviewtest"
)

// ReadSince against the fake GitHub, which answers the compare API as GitHub does: "ahead" with
// the files, "diverged" for two commits of unrelated branches, 404 for a commit it does not hold
// (the old head after a force push) and 404 "No common ancestor" for unrelated histories. Only
// "ahead" is an incremental change; every other answer means debating the whole change, and none
// is an error.
func TestReadSinceAfterForcePush(t *testing.T) {
	srv := githubtest.New(t)
	reviewtest.SeedExamplePR(t, srv, filepath.Join("..", "examples", "admin-export.diff"))
	gh := reviewtest.GitHubClient(t, srv)
	pr := review.PullRequest{Owner: "acme", Repo: "shop", Number: 7}
	srv.Compares["acme/shop@abc123...def456"] = []map[string]any{{"filename": "a.go", "status": "modified", "patch": "@@ -1 +1 @@\n-a\n+b"}}
	srv.Commits["acme/shop@old999"] = true
	srv.Commits["acme/shop@orphan1"] = true
	srv.Unrelated["acme/shop@orphan1...abc123"] = true
	for _, tc := range []struct {
		name, old, new string
		ok             bool
	}{
		{"ahead", "abc123", "def456", true},
		{"diverged", "old999", "abc123", false},
		{"old head gone", "gone000", "abc123", false},
		{"no common ancestor", "orphan1", "abc123", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, ok, err := review.ReadSince(context.Background(), review.NewGitHub(gh), pr, tc.old, tc.new)
			if err != nil || ok != tc.ok || (ok && (c == nil || len(c.Files) != 1 || c.HeadSHA != tc.new)) {
				t.Fatalf("ReadSince(%s...%s) = %v, %v, %v; want ok=%v and no error", tc.old, tc.new, c, ok, err, tc.ok)
			}
		})
	}
	// The fake's answers are GitHub's: 404 with GitHub's messages.
	for basehead, want := range map[string]string{"gone000...abc123": "Not Found", "orphan1...abc123": "No common ancestor between orphan1 and abc123."} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/repos/acme/shop/compare/"+basehead, nil)
		req.Header.Set("Authorization", "token ghs_test")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ Message string }
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || body.Message != want {
			t.Errorf("compare %s answered %d %q, want 404 %q", basehead, resp.StatusCode, body.Message, want)
		}
	}
	// Other failures are still errors (a 5xx that outlives the retries is not a force push).
	srv.Fail("GET", "/repos/acme/shop/compare/", 500, 100)
	if _, _, err := review.ReadSince(context.Background(), review.NewGitHub(gh), pr, "abc123", "def456"); err == nil {
		t.Error("a 500 from the compare API was taken for a force push")
	}
}
