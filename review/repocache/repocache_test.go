package repocache

import (
	"context"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/gittest"
)

// writeTree writes files (path -> content) into a new directory.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fixture is the fake GitHub holding acme/shop in git: main is the base, feature the head.
type fixture struct {
	gh         *githubtest.Server
	base, head string
	dir        string
	// tokens counts the tokens asked for.
	tokens atomic.Int32
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	githubtest.RequireGitHTTPBackend(t)
	gh := githubtest.New(t)
	repo := gittest.FromTrees(t,
		writeTree(t, map[string]string{"go.mod": "module example.com/shop\n", "api/api.go": "package api\n\nconst Version = 1\n", "README": "shop\n"}),
		writeTree(t, map[string]string{"api/api.go": "package api\n\nconst Version = 2\n", "api/new.go": "package api\n"}))
	gh.AddGitRepo("acme/shop", repo)
	return &fixture{gh: gh, dir: repo, base: gittest.Rev(t, repo, "main"), head: gittest.Rev(t, repo, "feature")}
}

// remote fetches acme/shop from the fake with a token scoped to it, minted as the App mints it.
func (f *fixture) remote() Remote { return f.remoteOf("acme/shop") }

// remoteOf fetches the fake's repository name ("owner/repo") with a token scoped to it.
func (f *fixture) remoteOf(name string) Remote {
	_, repo, _ := strings.Cut(name, "/")
	return Remote{URL: f.gh.GitURL(name), Token: func(ctx context.Context) (string, error) {
		f.tokens.Add(1)
		app, err := github.NewClient(nil).WithAuthToken("app-jwt").WithEnterpriseURLs(f.gh.URL+"/", f.gh.URL+"/")
		if err != nil {
			return "", err
		}
		tok, _, err := app.Apps.CreateInstallationToken(ctx, 42, &github.InstallationTokenOptions{
			Repositories: []string{repo}, Permissions: &github.InstallationPermissions{Contents: github.String("read")}})
		if err != nil {
			return "", err
		}
		return tok.GetToken(), nil
	}}
}

// gitCalls counts the fake's git requests: info/refs advertisements and upload-pack POSTs.
func gitCalls(gh *githubtest.Server) (refs, packs int) {
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

func newCache(t testing.TB) *Cache {
	t.Helper()
	c, err := New(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func read(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The first Trees fetches both commits over smart HTTP with a repository-scoped token and writes
// their trees; the second, of the same commits, transfers nothing and needs no token.
func TestTreesFetchOnceThenFromCache(t *testing.T) {
	f := newFixture(t)
	c := newCache(t)
	ctx := context.Background()

	w, err := c.Trees(ctx, f.remote(), f.base, f.head, []string{"api/api.go", "api/new.go"}, review.DefaultTreeLimits())
	if err != nil {
		t.Fatal(err)
	}
	base, head, cleanup := w.Base, w.Head, w.Cleanup
	if got := read(t, filepath.Join(base, "api", "api.go")); !strings.Contains(got, "Version = 1") {
		t.Errorf("base api.go = %q", got)
	}
	if got := read(t, filepath.Join(head, "api", "api.go")); !strings.Contains(got, "Version = 2") {
		t.Errorf("head api.go = %q", got)
	}
	if _, err := os.Stat(filepath.Join(base, "api", "new.go")); err == nil {
		t.Error("the base tree has the file the head added")
	}
	if got := read(t, filepath.Join(head, "README")); got != "shop\n" {
		t.Errorf("head README = %q: the head tree lacks a file it kept", got)
	}
	cleanup()
	if _, err := os.Stat(base); !os.IsNotExist(err) {
		t.Errorf("cleanup left %s", base)
	}
	refs, packs := gitCalls(f.gh)
	if refs != 1 || packs < 1 || f.tokens.Load() != 1 {
		t.Fatalf("cold fetch: %d ref advertisements, %d upload-pack POSTs, %d tokens; want 1, at least 1, 1", refs, packs, f.tokens.Load())
	}

	// Warm: nothing goes over the network, and no token is minted.
	w, err = c.Trees(ctx, f.remote(), f.base, f.head, []string{"api/api.go", "api/new.go"}, review.DefaultTreeLimits())
	if err != nil {
		t.Fatal(err)
	}
	base, head, cleanup = w.Base, w.Head, w.Cleanup
	defer cleanup()
	if got := read(t, filepath.Join(head, "api", "api.go")); !strings.Contains(got, "Version = 2") {
		t.Errorf("warm head api.go = %q", got)
	}
	if r2, p2 := gitCalls(f.gh); r2 != refs || p2 != packs || f.tokens.Load() != 1 {
		t.Errorf("warm fetch: %d more ref advertisements, %d more upload-pack POSTs, %d tokens in all; want none more, 1 token", r2-refs, p2-packs, f.tokens.Load())
	}
	_ = base
}

// A new head is fetched alone: the base the cache holds is not asked for again.
func TestFetchOnlyWhatIsMissing(t *testing.T) {
	f := newFixture(t)
	c := newCache(t)
	ctx := context.Background()
	got, err := c.Fetch(ctx, f.remote(), f.base)
	if err != nil || len(got) != 1 || got[0] != f.base {
		t.Fatalf("Fetch(base) = %v, %v; want the base fetched", got, err)
	}
	got, err = c.Fetch(ctx, f.remote(), f.base, f.head)
	if err != nil || len(got) != 1 || got[0] != f.head {
		t.Fatalf("Fetch(base, head) = %v, %v; want the head alone fetched", got, err)
	}
	got, err = c.Fetch(ctx, f.remote(), f.head, f.base)
	if err != nil || len(got) != 0 {
		t.Fatalf("Fetch of held commits = %v, %v; want nothing fetched", got, err)
	}
	if refs, _ := gitCalls(f.gh); refs != 2 {
		t.Errorf("%d fetches went over the network, want 2", refs)
	}
}

// Jobs of the same repository at once: the lock lets one fetch, the others find the commits.
func TestConcurrentJobsFetchOnce(t *testing.T) {
	f := newFixture(t)
	c := newCache(t)
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := c.Trees(context.Background(), f.remote(), f.base, f.head, nil, review.DefaultTreeLimits())
			if err == nil {
				if _, err = os.Stat(filepath.Join(w.Head, "api", "new.go")); err == nil {
					w.Cleanup()
				}
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("job %d: %v", i, err)
		}
	}
	if refs, _ := gitCalls(f.gh); refs != 1 || f.tokens.Load() != 1 {
		t.Errorf("%d fetches and %d tokens for six jobs of the same commits, want one each", refs, f.tokens.Load())
	}
}

// A token the fake did not issue, or one that expired, is refused with 401: the fetch fails
// with git's message, and neither the token nor the header that carried it is in the error.
func TestRefusedTokenFailsWithoutSayingIt(t *testing.T) {
	f := newFixture(t)
	for name, remote := range map[string]Remote{
		"wrong": {URL: f.gh.GitURL("acme/shop"), Token: func(context.Context) (string, error) { return "ghs_NotOneTheFakeIssued0123456789abcd", nil }},
		"expired": func() Remote {
			f.gh.TokenLifetime = -1
			return f.remote()
		}(),
	} {
		t.Run(name, func(t *testing.T) {
			var used string
			r := remote
			r.Token = func(ctx context.Context) (string, error) {
				tok, err := remote.Token(ctx)
				used = tok
				return tok, err
			}
			_, err := newCache(t).Trees(context.Background(), r, f.base, f.head, nil, review.DefaultTreeLimits())
			if err == nil {
				t.Fatal("a refused token fetched")
			}
			if !strings.Contains(err.Error(), "Authentication failed") && !strings.Contains(err.Error(), "401") {
				t.Errorf("error %q does not say the authentication failed", err)
			}
			header := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + used))
			if used == "" || strings.Contains(err.Error(), used) || strings.Contains(err.Error(), header) {
				t.Errorf("the error names the token: %q", err)
			}
		})
	}
	var unauthorized int
	for _, c := range f.gh.Calls() {
		if c.Operation == "git/info-refs" {
			unauthorized++
		}
	}
	if unauthorized < 2 {
		t.Errorf("%d ref advertisements asked for, want at least one per refused token", unauthorized)
	}
}

// A token scoped to another repository does not reach this one: GitHub answers it "Repository
// not found".
func TestTokenOfAnotherRepositoryIsRefused(t *testing.T) {
	f := newFixture(t)
	r := Remote{URL: f.gh.GitURL("acme/shop"), Token: func(ctx context.Context) (string, error) {
		app, _ := github.NewClient(nil).WithAuthToken("app-jwt").WithEnterpriseURLs(f.gh.URL+"/", f.gh.URL+"/")
		tok, _, err := app.Apps.CreateInstallationToken(ctx, 42, &github.InstallationTokenOptions{Repositories: []string{"other"}})
		return tok.GetToken(), err
	}}
	_, err := newCache(t).Fetch(context.Background(), r, f.base)
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("Fetch with a token of another repository: %v, want repository not found", err)
	}
}

// The token reaches git through its environment only: a git that records its command lines
// never sees it there.
func TestTokenNeverOnTheCommandLine(t *testing.T) {
	f := newFixture(t)
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "argv.log")
	shim := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> \"$ARGV_LOG\"\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ARGV_LOG", log)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	var used string
	r := f.remote()
	mint := r.Token
	r.Token = func(ctx context.Context) (string, error) {
		tok, err := mint(ctx)
		used = tok
		return tok, err
	}
	w, err := newCache(t).Trees(context.Background(), r, f.base, f.head, nil, review.DefaultTreeLimits())
	if err != nil {
		t.Fatal(err)
	}
	w.Cleanup()
	argv := read(t, log)
	if !strings.Contains(argv, "fetch --quiet --depth=1 --no-tags") {
		t.Fatalf("the recording git did not run the fetch:\n%s", argv)
	}
	header := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + used))
	if used == "" || strings.Contains(argv, used) || strings.Contains(argv, header) || strings.Contains(argv, "@") {
		t.Errorf("the token or credentials are on a command line:\n%s", argv)
	}
}

func TestBadInputIsRefusedBeforeGit(t *testing.T) {
	f := newFixture(t)
	c := newCache(t)
	ctx := context.Background()
	for _, tc := range []struct {
		url, sha, want string
	}{
		{f.gh.GitURL("acme/shop"), "--upload-pack=touch /tmp/x", "not a full commit id"},
		{f.gh.GitURL("acme/shop"), "main", "not a full commit id"},
		{strings.Replace(f.gh.GitURL("acme/shop"), "http://", "http://x-access-token:secret@", 1), f.base, "without credentials"},
		{f.gh.URL + "/acme/../shop.git", f.base, "no repository or owner name"},
		{"file:///etc/shop.git", f.base, "not a repository URL"},
	} {
		_, err := c.Fetch(ctx, Remote{URL: tc.url, Token: f.remote().Token}, tc.sha)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Fetch(%q, %q) = %v, want %q", tc.url, tc.sha, err, tc.want)
		}
	}
	if refs, _ := gitCalls(f.gh); refs != 0 {
		t.Errorf("bad input reached the server %d times", refs)
	}
}

func TestURL(t *testing.T) {
	for _, tc := range []struct{ web, want string }{
		{"https://github.com", "https://github.com/acme/shop.git"},
		{"https://ghe.example.com/", "https://ghe.example.com/acme/shop.git"},
	} {
		if got := URL(tc.web, "acme", "shop"); got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.web, got, tc.want)
		}
	}
}
