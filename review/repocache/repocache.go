// Package repocache keeps one bare git repository per GitHub repository on disk, fetches the
// commits of pull requests into it shallowly over git smart HTTP, and writes their trees into
// temporary directories for whole-tree analysis. A commit the cache holds is never fetched again.
//
// It drives the git binary rather than go-git. git's client is the reference implementation of
// what GitHub serves (protocol v2, a shallow fetch of a commit named by its SHA, which GitHub allows
// for any commit of the repository), and the trees are written from git's listing and blobs, as
// `debate --git` writes them (review.WriteGitTrees). go-git would add a large dependency for a fetch that git does
// in one command, while the type-checked analysis that consumes the trees needs tools beyond the
// binary (the go command) anyway. Without git the fetch fails, and callers degrade.
package repocache

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/debatebot/debatebot/review"
)

// Cache is the directory of bare repositories, one per repository URL
// (<dir>/<host>/<owner>/<repo>.git), each guarded by a lock so that concurrent jobs of the same
// repository (in this process or another sharing the directory) fetch one at a time.
type Cache struct {
	dir   string
	mu    sync.Mutex
	locks map[string]chan struct{}
}

// New returns the cache kept in dir, which it creates.
func New(dir string) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("failed to make the repository cache %s: %w", dir, err)
	}
	return &Cache{dir: dir, locks: map[string]chan struct{}{}}, nil
}

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// Remote is a repository to fetch from.
type Remote struct {
	// URL is where git serves the repository, https://<host>/<owner>/<repo>.git; it holds no
	// credentials.
	URL string
	// Token returns the installation token git authenticates with (as x-access-token, by basic
	// auth); it is asked only when a commit must be fetched, so a warm cache needs none.
	Token func(ctx context.Context) (string, error)
}

// URL is where a GitHub whose web pages are at web (https://github.com, or a GitHub Enterprise
// Server's https://<host>) serves the git repository owner/repo.
func URL(web, owner, repo string) string {
	return strings.TrimSuffix(web, "/") + "/" + url.PathEscape(owner) + "/" + url.PathEscape(repo) + ".git"
}

// Trees writes the trees of the commits base and head of the remote repository into a temporary
// directory, fetching first (in one shallow fetch) the commits the cache lacks, within lim and as
// review.WriteGitTrees chooses for the changed paths; its Cleanup removes the directory.
func (c *Cache) Trees(ctx context.Context, r Remote, base, head string, changed []string, lim review.TreeLimits) (*review.WrittenTrees, error) {
	gitDir, unlock, err := c.open(ctx, r.URL)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if _, err := c.fetch(ctx, gitDir, r, base, head); err != nil {
		return nil, err
	}
	// Written under the lock: a later fetch may repack (git's automatic gc) while git reads.
	w, err := review.WriteGitTrees(ctx, review.GitTrees{Repo: gitDir, Base: base, Head: head, Changed: changed, Limits: lim, Env: gitEnv(nil)})
	if err != nil {
		return nil, fmt.Errorf("failed to write the trees of %s: %w", r.URL, err)
	}
	return w, nil
}

// Fetch makes the cache hold the commits, fetching those it lacks in one shallow fetch, and
// returns the ones it fetched (none when the cache held them all).
func (c *Cache) Fetch(ctx context.Context, r Remote, shas ...string) ([]string, error) {
	gitDir, unlock, err := c.open(ctx, r.URL)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return c.fetch(ctx, gitDir, r, shas...)
}

// shaRe is a full commit id (SHA-1 or SHA-256): only these reach git's command line.
var shaRe = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`)

// refFor is the ref that keeps a fetched commit in the cache (and out of git's garbage collection).
func refFor(sha string) string { return "refs/debatebot/" + sha }

// fetch fetches the commits the repository at gitDir lacks (the lock held).
func (c *Cache) fetch(ctx context.Context, gitDir string, r Remote, shas ...string) ([]string, error) {
	for _, s := range shas {
		if !shaRe.MatchString(s) {
			return nil, fmt.Errorf("cannot fetch %q from %s: not a full commit id", s, r.URL)
		}
	}
	missing, err := c.missing(ctx, gitDir, shas)
	if err != nil || len(missing) == 0 {
		return nil, err
	}
	if r.Token == nil {
		return nil, fmt.Errorf("cannot fetch %s: no token to authenticate with", r.URL)
	}
	token, err := r.Token(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot fetch %s: %w", r.URL, err)
	}
	header := "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+token))
	args := []string{
		// No credential helper, redirect or stalled transfer: the token goes to this URL only,
		// by the header below, and a transfer slower than 1 KiB/s for a minute is given up.
		"-c", "credential.helper=", "-c", "http.followRedirects=false",
		"-c", "http.lowSpeedLimit=1024", "-c", "http.lowSpeedTime=60",
		// Automatic gc finishes before the fetch returns (the lock held), not in the background.
		"-c", "gc.autoDetach=false",
		"fetch", "--quiet", "--depth=1", "--no-tags", "--no-write-fetch-head", r.URL,
	}
	for _, s := range missing {
		args = append(args, s+":"+refFor(s))
	}
	// The token reaches git through its environment only (GIT_CONFIG_*, as http.<url>.extraHeader):
	// never the command line, which other users of the machine can read, nor the URL.
	env := []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http." + r.URL + ".extraHeader", "GIT_CONFIG_VALUE_0=" + header}
	if _, err := git(ctx, gitDir, env, args...); err != nil {
		msg := strings.NewReplacer(token, "[token]", header, "[header]").Replace(err.Error())
		if strings.Contains(msg, "terminal prompts disabled") {
			// git asks for a user name when the server answers 401 to the header's token.
			msg = "the server refused the token (HTTP 401: authentication failed)"
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("fetching %d commit(s) from %s stopped: %w", len(missing), r.URL, ctx.Err())
		}
		return nil, fmt.Errorf("failed to fetch %d commit(s) from %s: %s", len(missing), r.URL, msg)
	}
	if still, err := c.missing(ctx, gitDir, missing); err != nil || len(still) > 0 {
		return nil, errors.Join(err, fmt.Errorf("fetching from %s did not bring %s", r.URL, strings.Join(still, ", ")))
	}
	return missing, nil
}

// missing returns the commits of shas the repository does not hold with their trees, asking git
// once.
func (c *Cache) missing(ctx context.Context, gitDir string, shas []string) ([]string, error) {
	var in bytes.Buffer
	for _, s := range shas {
		// The ref is written once the fetch brought the commit and everything below it.
		fmt.Fprintf(&in, "%s^{tree}\n", refFor(s))
	}
	cmd := exec.CommandContext(ctx, "git", "-C", gitDir, "cat-file", "--batch-check")
	cmd.Env = gitEnv(nil)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("failed to look for commits in %s: %w: %s", gitDir, err, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(shas) {
		return nil, fmt.Errorf("failed to look for commits in %s: git answered %d lines for %d commits", gitDir, len(lines), len(shas))
	}
	var missing []string
	for i, l := range lines {
		if strings.HasSuffix(l, " missing") && !slices.Contains(missing, shas[i]) {
			missing = append(missing, shas[i])
		}
	}
	return missing, nil
}

// nameRe is what a host, owner or repository name may be in the cache's paths.
var nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// open returns the bare repository of the URL, made on first use, with its lock held.
func (c *Cache) open(ctx context.Context, remote string) (string, func(), error) {
	u, err := url.Parse(remote)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil || u.RawQuery != "" {
		return "", nil, fmt.Errorf("%q is not a repository URL (https://host/owner/repo.git, without credentials)", remote)
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	host := strings.ReplaceAll(u.Host, ":", "_")
	if len(parts) < 2 || !strings.HasSuffix(parts[len(parts)-1], ".git") || !nameRe.MatchString(host) {
		return "", nil, fmt.Errorf("%q is not a repository URL (https://host/owner/repo.git)", remote)
	}
	parts[len(parts)-1] = strings.TrimSuffix(parts[len(parts)-1], ".git")
	for _, p := range parts {
		if !nameRe.MatchString(p) || strings.HasSuffix(p, ".") {
			return "", nil, fmt.Errorf("%q is not a repository URL: %q is no repository or owner name", remote, p)
		}
	}
	gitDir := filepath.Join(append([]string{c.dir, host}, parts...)...) + ".git"
	unlock, err := c.lock(ctx, gitDir)
	if err != nil {
		return "", nil, err
	}
	if _, err := os.Stat(filepath.Join(gitDir, "HEAD")); err != nil {
		// No templates: the cache's repositories have no hooks or sample files.
		if _, err := git(ctx, "", nil, "init", "--quiet", "--bare", "--template=", gitDir); err != nil {
			unlock()
			return "", nil, fmt.Errorf("failed to make the cache repository %s: %w", gitDir, err)
		}
	}
	return gitDir, unlock, nil
}

// lock takes the repository's lock: a channel for this process's jobs, then a file lock for other
// processes sharing the cache.
func (c *Cache) lock(ctx context.Context, gitDir string) (func(), error) {
	c.mu.Lock()
	ch, ok := c.locks[gitDir]
	if !ok {
		ch = make(chan struct{}, 1)
		c.locks[gitDir] = ch
	}
	c.mu.Unlock()
	select {
	case ch <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("waited for the lock of %s: %w", gitDir, ctx.Err())
	}
	if err := os.MkdirAll(filepath.Dir(gitDir), 0o700); err != nil {
		<-ch
		return nil, fmt.Errorf("failed to make %s: %w", filepath.Dir(gitDir), err)
	}
	unlockFile, err := lockFile(ctx, gitDir+".lock")
	if err != nil {
		<-ch
		return nil, err
	}
	return func() { unlockFile(); <-ch }, nil
}

// git runs git in dir (none: the current directory) with the environment gitEnv makes of extra.
func git(ctx context.Context, dir string, extra []string, args ...string) ([]byte, error) {
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Env = gitEnv(extra)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", subcommand(args), err, clip(strings.TrimSpace(stderr.String()), 600))
	}
	return out, nil
}

// subcommand is git's command among args, past the -C and -c options.
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-C", "-c":
			i++
		default:
			return args[i]
		}
	}
	return ""
}

// gitEnv is the process's environment without git's own variables (a GIT_DIR or a GIT_CONFIG_* of
// the host must not steer the cache), reading no system or global configuration (whose
// url.*.insteadOf could send the token elsewhere) and never prompting, then extra.
func gitEnv(extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "SSH_ASKPASS=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=")
	return append(env, extra...)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
