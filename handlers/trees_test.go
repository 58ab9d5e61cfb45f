package handlers

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/gittest"
	"github.com/debatebot/debatebot/review/render"
)

// nilDeref is what the type-checked analysis (nilness) finds at head: the change removed the
// assignment that kept u from being nil, three lines above a dereference the diff does not show.
const nilDeref = "| `api/user.go:19` | nilness |"

// treesApp starts the App with a repository cache and a fake GitHub that holds acme/shop in git,
// and acme/shop#7, whose change removes the guard. It returns the app and the held repository.
func treesApp(t *testing.T, edit func(*config.Server)) (*app, *githubtest.GitRepo) {
	t.Helper()
	return treesAppOf(t, filepath.Join("testdata", "nilguard", "head"), edit, nil)
}

// treesAppWith is treesApp with the pull request's head edited by more (which commits on feature,
// the branch checked out in dir) before the pull request is opened.
func treesAppWith(t *testing.T, edit func(*config.Server), more func(dir string)) (*app, *githubtest.GitRepo) {
	t.Helper()
	return treesAppOf(t, filepath.Join("testdata", "nilguard", "head"), edit, more)
}

// treesAppFrom is treesApp with the pull request's head tree at head (files it lacks are the
// base's).
func treesAppFrom(t *testing.T, head string, edit func(*config.Server)) (*app, *githubtest.GitRepo) {
	t.Helper()
	return treesAppOf(t, head, edit, nil)
}

// treesAppOf is treesApp with the head tree at head, then edited by more (when not nil).
func treesAppOf(t *testing.T, head string, edit func(*config.Server), more func(dir string)) (*app, *githubtest.GitRepo) {
	t.Helper()
	githubtest.RequireGitHTTPBackend(t)
	cache := filepath.Join(t.TempDir(), "cache")
	a := newAppWith(t, func(cfg *config.Server) {
		cfg.CacheDir, cfg.MaxRepoMB = cache, config.DefaultMaxRepoMB
		if edit != nil {
			edit(cfg)
		}
	})
	dir := gittest.FromTrees(t, filepath.Join("testdata", "nilguard", "base"), head)
	if more != nil {
		more(dir)
	}
	g := a.gh.AddGitRepo("acme/shop", dir)
	diff, err := exec.Command("git", "-C", dir, "diff", "--no-color", "--no-ext-diff", "main..feature").Output()
	if err != nil {
		t.Fatal(err)
	}
	a.gh.PRs["acme/shop#7"] = &githubtest.PR{Title: "Describe users without a fallback", BaseRef: "main", HeadRef: "feature",
		BaseSHA: gittest.Rev(t, dir, "main"), HeadSHA: gittest.Rev(t, dir, "feature"), Diff: string(diff)}
	return a, g
}

// debate posts the pull request's opening (or another pull_request event) and returns the
// whole debate (as its page has it) and the decision comment.
func (a *app) debate(event, delivery string) (transcript, decision string) {
	a.t.Helper()
	head := a.gh.PRs["acme/shop#7"].HeadSHA
	body := fixture(a.t, event, func(p map[string]any) { p["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = head })
	if code := a.post("pull_request", delivery, body, secret); code != http.StatusOK && code != http.StatusAccepted {
		a.t.Fatalf("delivery answered %d", code)
	}
	a.srv.Queue.Wait()
	tr, dec := a.comments(render.TranscriptMarker), a.comments(render.DecisionMarker)
	if len(tr) != 1 || len(dec) != 1 {
		a.t.Fatalf("%d transcript and %d decision comments, want one each", len(tr), len(dec))
	}
	// The summary comment is short; the whole debate (evidence, notes, arguments) is on its page.
	return a.wholeDebate(), dec[0].Body
}

// gitRequests counts the fake's git requests (ref advertisements and upload-pack POSTs) and the
// repository-scoped tokens it issued.
func (a *app) gitRequests() (refs, packs, scoped int) {
	for _, c := range a.gh.Calls() {
		switch {
		case c.Operation == "git/info-refs":
			refs++
		case c.Operation == "git/upload-pack":
			packs++
		case strings.HasSuffix(c.Path, "/access_tokens") && strings.Contains(c.Body, `"repositories":["shop"]`):
			scoped++
		}
	}
	return refs, packs, scoped
}

// A pull request is debated over its whole trees, fetched over git smart HTTP with a token
// scoped to the repository: the nil dereference only the type-checked analysis finds is
// required; a second debate of the same commits fetches nothing.
func TestReviewFetchesWholeTrees(t *testing.T) {
	a, _ := treesApp(t, nil)
	tr, dec := a.debate("pull_request.opened.json", "d-t1")
	for _, want := range []string{nilDeref, "type-checked Go analysis (go vet passes, staticcheck, bodyclose, sqlclosecheck, rowserrcheck, noctx, errcheck, nilaway, gosec, debatebot's own analyzers and comparison of protections) of 1 package(s) in base and head: example.com/shop/api; 1 new finding(s)"} {
		if !strings.Contains(tr, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("transcript:\n%s", tr)
	}
	if !strings.Contains(dec, "api/user.go:19: handle the nil case before the dereference") {
		t.Errorf("decision does not require the nil case handled:\n%s", dec)
	}
	if strings.Contains(tr, "whole trees unavailable") || strings.Contains(tr, "type-checked Go analysis skipped") {
		t.Errorf("the trees were not fetched:\n%s", tr)
	}
	refs, packs, scoped := a.gitRequests()
	if refs != 1 || packs < 1 || scoped != 1 {
		t.Errorf("%d ref advertisements, %d upload-pack POSTs, %d scoped tokens; want one fetch with one token", refs, packs, scoped)
	}
	for _, c := range a.gh.Calls() {
		if strings.HasSuffix(c.Path, "/access_tokens") && strings.Contains(c.Body, "repositories") && !strings.Contains(c.Body, `"permissions":{"contents":"read"}`) {
			t.Errorf("the token for git may do more than read contents: %s", c.Body)
		}
	}

	// Reopened: the same commits are debated again from the cache.
	tr2, _ := a.debate("pull_request.reopened.json", "d-t2")
	if !strings.Contains(tr2, nilDeref) {
		t.Errorf("the second debate lost the whole-tree finding")
	}
	if r2, p2, s2 := a.gitRequests(); r2 != refs || p2 != packs || s2 != scoped {
		t.Errorf("a warm cache went to git again: %d ref advertisements, %d POSTs, %d tokens more", r2-refs, p2-packs, s2-scoped)
	}
	a.checkCalls()
}

// git refuses the token (401, as GitHub does for an expired one): the debate still runs, over the
// changed packages' directories read through the contents API, and says why; when those cannot
// be read either, over the diff's hunks, saying so.
func TestRefusedTokenDegrades(t *testing.T) {
	t.Run("directories", func(t *testing.T) {
		a, _ := treesApp(t, nil)
		a.gh.TokenLifetime = -time.Minute
		tr, _ := a.debate("pull_request.opened.json", "d-r1")
		if !strings.Contains(tr, "whole trees unavailable (failed to fetch 2 commit(s) from "+a.gh.GitURL("acme/shop")+": the server refused the token (HTTP 401: authentication failed)): the type-checked Go analysis saw only the changed packages' directories") {
			t.Errorf("the transcript does not say the fetch was refused:\n%s", tr)
		}
		if !strings.Contains(tr, nilDeref) {
			t.Errorf("the changed package's directory did not give the whole-tree finding:\n%s", tr)
		}
		if refs, _, _ := a.gitRequests(); refs == 0 {
			t.Error("git was never asked")
		}
		checkNoToken(t, a.gh, tr)
	})
	t.Run("hunks", func(t *testing.T) {
		a, _ := treesApp(t, nil)
		a.gh.TokenLifetime = -time.Minute
		a.gh.FailIf(func(c githubtest.Call) bool { return c.Method == "GET" && c.Path == "/repos/acme/shop/contents/api" }, 502, 100)
		tr, dec := a.debate("pull_request.opened.json", "d-r2")
		if !strings.Contains(tr, "type-checked Go analysis skipped: whole trees unavailable (failed to fetch 2 commit(s) from") ||
			!strings.Contains(tr, "and the changed packages' directories could not be read: failed to list api of acme/shop#7 at") {
			t.Errorf("the transcript does not say why the analysis saw hunks only:\n%s", tr)
		}
		if strings.Contains(tr, nilDeref) || !strings.Contains(dec, "decision:") {
			t.Errorf("hunks only: want a decision without the whole-tree finding:\n%s", tr)
		}
		checkNoToken(t, a.gh, tr)
	})
}

// A repository over DEBATEBOT_MAX_REPO_MB is not fetched: the changed package's directory and
// its go.mod are read through the contents API, and the transcript says why.
func TestLargeRepositoryReadsDirectories(t *testing.T) {
	a, g := treesApp(t, func(cfg *config.Server) { cfg.MaxRepoMB = 2 })
	g.SizeKB = 3 * 1024
	tr, _ := a.debate("pull_request.opened.json", "d-l1")
	if !strings.Contains(tr, "whole trees unavailable (acme/shop is 3 MB, over DEBATEBOT_MAX_REPO_MB (2)): the type-checked Go analysis saw only the changed packages' directories, read through the contents API") {
		t.Errorf("the transcript does not say the repository is over the limit:\n%s", tr)
	}
	if !strings.Contains(tr, nilDeref) {
		t.Errorf("the changed package's directory did not give the whole-tree finding:\n%s", tr)
	}
	if refs, _, scoped := a.gitRequests(); refs != 0 || scoped != 0 {
		t.Errorf("a repository over the limit was fetched: %d ref advertisements, %d tokens", refs, scoped)
	}
	listed := map[string]bool{}
	for _, c := range a.gh.Calls() {
		if p, ok := strings.CutPrefix(c.Path, "/repos/acme/shop/contents/"); ok {
			listed[p] = true
		}
	}
	if !listed["api"] || !listed["go.mod"] || listed["store"] || listed["store/store.go"] {
		t.Errorf("contents read: %v; want the api directory and go.mod, not the untouched store", githubtest.Keys(listed))
	}
	a.checkCalls()
}

// checkNoToken fails t when a token the fake issued appears in what the bot published or sent.
func checkNoToken(t *testing.T, gh *githubtest.Server, transcript string) {
	t.Helper()
	tokens := gh.Tokens()
	if len(tokens) == 0 {
		t.Fatal("the fake issued no token")
	}
	var published []string
	published = append(published, transcript)
	for _, c := range gh.CommentsOn("acme/shop#7") {
		published = append(published, c.Body)
	}
	for _, r := range gh.Checks("acme/shop") {
		published = append(published, r.Summary, r.Title)
	}
	for _, c := range gh.Calls() {
		published = append(published, c.Path, c.Query, c.Body)
	}
	for _, tok := range tokens {
		for _, p := range published {
			if strings.Contains(p, tok) {
				t.Fatalf("a token appears in what the bot published or sent: %q", p[:min(len(p), 200)])
			}
		}
	}
}

// The base tree is the pull request's merge base, the commit its diff is taken from, not the base
// branch's head: a defect the base branch fixed after the pull request branched off is no new
// finding of the change, though the head still has it.
func TestBaseTreeIsTheMergeBase(t *testing.T) {
	a, g := treesApp(t, nil)
	git := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", g.Dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("checkout", "-q", "main")
	if err := os.WriteFile(filepath.Join(g.Dir, "api", "legacy.go"), []byte("package api\n\n// Legacy is fixed.\nfunc Legacy(u *User) string { return \"\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("commit", "-qam", "fix Legacy on main")
	a.gh.PRs["acme/shop#7"].BaseSHA = gittest.Rev(t, g.Dir, "main")

	tr, _ := a.debate("pull_request.opened.json", "d-m1")
	if !strings.Contains(tr, "example.com/shop/api; 1 new finding(s), 1 pre-existing finding(s) left out") || strings.Contains(tr, "`api/legacy.go:") {
		t.Errorf("the defect the base branch fixed later is blamed on the change:\n%s", tr)
	}
	if !strings.Contains(tr, nilDeref) {
		t.Errorf("the change's own finding is missing:\n%s", tr)
	}
}

// A push after a debate is debated from the earlier head to the new one: those are the trees, so
// what the new push adds is found (go vet's lostcancel and gosec's G118 on one line), what the
// earlier head already had is not new, and only the new head is fetched (the earlier one is in
// the cache).
func TestNewPushTreesStartAtTheDebatedHead(t *testing.T) {
	a, g := treesApp(t, nil)
	a.debate("pull_request.opened.json", "d-s1")
	refs, _, _ := a.gitRequests()

	wait := "package api\n\nimport (\n\t\"context\"\n\t\"time\"\n)\n\n// Wait waits a second at most for ctx.\nfunc Wait(ctx context.Context) error {\n\tctx, _ = context.WithTimeout(ctx, time.Second)\n\t<-ctx.Done()\n\treturn ctx.Err()\n}\n"
	if err := os.WriteFile(filepath.Join(g.Dir, "api", "wait.go"), []byte(wait), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "api/wait.go"}, {"commit", "-qm", "wait"}} {
		if out, err := exec.Command("git", append([]string{"-C", g.Dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	a.gh.SetHead("acme/shop#7", gittest.Rev(t, g.Dir, "feature"))
	tr, _ := a.debate("pull_request.synchronize.json", "d-s2")
	if !strings.Contains(tr, "## Carried forward from ") || !strings.Contains(tr, "| `api/wait.go:10` | lostcancel |") {
		t.Errorf("the new push's lost cancel is not debated incrementally:\n%s", tr)
	}
	if !strings.Contains(tr, "; 2 new finding(s), 2 pre-existing finding(s) left out") || strings.Contains(tr, nilDeref) {
		t.Errorf("the earlier head's findings are new again:\n%s", tr)
	}
	if r2, _, _ := a.gitRequests(); r2 != refs+1 {
		t.Errorf("%d fetches for the new push, want one", r2-refs)
	}
}
