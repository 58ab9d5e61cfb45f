package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/render"
)

// `debatebot serve` debates a pull request over its whole trees, fetched from the fake GitHub
// over git smart HTTP into its repository cache: the nil dereference the change makes possible,
// which only the type-checked analysis finds at head, is in the published transcript, decision
// and check run. The same commits debated again are not fetched again. No token the fake issued
// appears in the logs, the comments or the check runs.
func TestServeDebatesWholeTreesFetchedOverGit(t *testing.T) {
	t.Parallel() // a process of its own: waits on it overlap another test's
	githubtest.RequireGitHTTPBackend(t)
	bin := buildBinary(t)
	gh := githubtest.New(t)
	_, head := nilguardPR(t, gh)
	cache := filepath.Join(t.TempDir(), "cache")
	// No GITHUB_WEB_URL: git is fetched from where the API URL says GitHub is. git and go (the
	// type-checked analysis) are found on the test's PATH, and go's caches under its HOME.
	extra := []string{"DEBATEBOT_CACHE_DIR=" + cache, "DEBATEBOT_LOG_LEVEL=debug"}
	for _, k := range []string{"PATH", "HOME", "GOROOT", "GOPATH", "GOCACHE", "GOMODCACHE"} {
		if v, ok := os.LookupEnv(k); ok {
			extra = append(extra, k+"="+v)
		}
	}
	p := newServe(t, bin, appEnv(t, gh, filepath.Join(t.TempDir(), "debatebot.db"), "", extra...))
	p.start()
	defer p.stop()

	debate := func(event, delivery string, runs int) {
		t.Helper()
		body := webhookFixture(t, event, 7, func(m map[string]any) { m["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = head })
		if code := p.post("pull_request", delivery, body); code != http.StatusOK && code != http.StatusAccepted {
			t.Fatalf("delivery answered %d\n%s", code, p.logs.String())
		}
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			done := 0
			for _, r := range gh.Checks("acme/shop") {
				if r.Status == "completed" {
					done++
				}
			}
			if done == runs {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("no %d concluded check runs:\n%s", runs, p.logs.String())
	}
	gitCalls := func() (refs, packs int) {
		for _, c := range gh.Calls() {
			switch c.Operation {
			case "git/info-refs":
				refs++
			case "git/upload-pack":
				packs++
			}
		}
		return refs, packs
	}

	debate("pull_request.opened.json", "d-1", 1)
	var transcript, decision string
	for _, c := range gh.CommentsOn("acme/shop#7") {
		switch {
		case strings.HasPrefix(c.Body, render.TranscriptMarker):
			transcript = c.Body
		case strings.HasPrefix(c.Body, render.DecisionMarker):
			decision = c.Body
		}
	}
	if !strings.Contains(transcript, "of 1 package(s) in base and head: example.com/shop/api; 1 new finding(s)") || !reviewed(gh, "api/user.go", 19, "nilness") {
		t.Errorf("the summary lacks the whole-tree analysis, or its finding is not in the review")
	}
	if !strings.Contains(decision, "decision: request_changes") || !strings.Contains(decision, "api/user.go:19: handle the nil case before the dereference") {
		t.Errorf("the decision does not require the nil case handled:\n%s", decision)
	}
	// The line is not in the diff, so the finding has no review comment: the check run annotates it.
	run := gh.Checks("acme/shop")[0]
	annotated := false
	for _, a := range run.Annotations {
		annotated = annotated || (a.Path == "api/user.go" && a.StartLine == 19 && strings.Contains(a.Title, "nilness"))
	}
	if !annotated || run.Conclusion != "action_required" {
		t.Errorf("check run %s with annotations %+v; want action_required with the nil dereference at api/user.go:19", run.Conclusion, run.Annotations)
	}
	refs, packs := gitCalls()
	if refs != 1 || packs < 1 {
		t.Errorf("%d ref advertisements and %d upload-pack POSTs, want one fetch", refs, packs)
	}
	if _, err := os.Stat(filepath.Join(cache, strings.ReplaceAll(strings.TrimPrefix(gh.URL, "http://"), ":", "_"), "acme", "shop.git", "HEAD")); err != nil {
		t.Errorf("no bare repository in the cache: %v", err)
	}
	if t.Failed() {
		t.Logf("transcript:\n%s\nlogs:\n%s", transcript, p.logs.String())
	}

	// Reopened: a second debate of the same commits, from the cache.
	debate("pull_request.reopened.json", "d-2", 2)
	if r2, p2 := gitCalls(); r2 != refs || p2 != packs {
		t.Errorf("the warm cache went to git again: %d ref advertisements and %d upload-pack POSTs more", r2-refs, p2-packs)
	}
	for _, c := range gh.CommentsOn("acme/shop#7") {
		if strings.HasPrefix(c.Body, render.DecisionMarker) && !strings.Contains(c.Body, "api/user.go:19: handle the nil case before the dereference") {
			t.Errorf("the second debate lost the whole-tree finding")
		}
	}

	// The tokens the fake issued (the installation's and the one for git) are nowhere.
	tokens := gh.Tokens()
	if len(tokens) < 2 {
		t.Fatalf("the fake issued %d tokens, want the installation's and the repository's", len(tokens))
	}
	var seen []string
	seen = append(seen, p.logs.String())
	for _, c := range gh.CommentsOn("acme/shop#7") {
		seen = append(seen, c.Body)
	}
	for _, r := range gh.Checks("acme/shop") {
		seen = append(seen, r.Title, r.Summary)
		for _, a := range r.Annotations {
			seen = append(seen, a.Message)
		}
	}
	for _, tok := range tokens {
		for _, s := range seen {
			if strings.Contains(s, tok) {
				t.Fatalf("token %s… appears in the logs or what was published", tok[:8])
			}
		}
	}
}
