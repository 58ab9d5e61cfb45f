package githubtest

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// GitRepo is a repository the fake holds in git (a work tree or a bare repository on disk, e.g.
// built by review/gittest): served over git smart HTTP as GitHub serves it, and answering the
// repository, contents and compare APIs from its commits.
type GitRepo struct {
	Dir string
	// SizeKB is the size GET /repos/{owner}/{repo} reports (GitHub's "size", in KB); 0 means
	// what the repository's objects take on disk.
	SizeKB int
}

// token is an installation token the fake issued.
type token struct {
	// repos are the repository names it is limited to (all of the installation's when empty).
	repos   []string
	expires time.Time
}

// RequireGitHTTPBackend skips the test unless git and its http-backend are installed, and
// returns the git binary.
func RequireGitHTTPBackend(t testing.TB) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed: install git (.ci/run does) to run the tests that fetch over git smart HTTP")
	}
	out, err := exec.Command(git, "--exec-path").Output()
	if err != nil {
		t.Skipf("git --exec-path failed (%v): install git (.ci/run does) to run the tests that fetch over git smart HTTP", err)
	}
	if _, err := os.Stat(filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")); err != nil {
		t.Skip("git http-backend is missing: install git with its http-backend (Debian's git package; .ci/run installs it) to run the tests that fetch over git smart HTTP")
	}
	return git
}

// AddGitRepo makes the fake hold the git repository at dir as name ("owner/repo"). The test is
// skipped when git http-backend is missing.
func (s *Server) AddGitRepo(name, dir string) *GitRepo {
	s.t.Helper()
	git := RequireGitHTTPBackend(s.t)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.git = git
	g := &GitRepo{Dir: dir}
	s.Repos[name] = g
	return g
}

// Tokens returns every installation token the fake issued, oldest first.
func (s *Server) Tokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.tokenOrder...)
}

// GitURL is where the fake serves the repository over git, as GitHub serves it at
// https://github.com/<owner>/<repo>.git.
func (s *Server) GitURL(name string) string { return s.URL + "/" + name + ".git" }

const tokenChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// issueToken answers POST /app/installations/{id}/access_tokens as GitHub does: a new token,
// limited to the repositories and permissions the request names (s.mu held).
func (s *Server) issueToken(w http.ResponseWriter, body []byte) {
	var in struct {
		Repositories []string          `json:"repositories"`
		Permissions  map[string]string `json:"permissions"`
	}
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, &in); err != nil {
			s.writeError(w, http.StatusBadRequest, "Problems parsing JSON")
			return
		}
	}
	for name, level := range in.Permissions {
		if level != "read" && level != "write" {
			s.writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": fmt.Sprintf("The permission %s=%s is not valid.", name, level), "documentation_url": "https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app"})
			return
		}
	}
	b := make([]byte, 36)
	if _, err := rand.Read(b); err != nil {
		s.writeError(w, http.StatusInternalServerError, "Server Error")
		return
	}
	for i := range b {
		b[i] = tokenChars[int(b[i])%len(tokenChars)]
	}
	value := "ghs_" + string(b)
	life := s.TokenLifetime
	if life == 0 {
		life = time.Hour
	}
	tok := &token{repos: in.Repositories, expires: time.Now().Add(life)}
	s.tokens[value] = tok
	s.tokenOrder = append(s.tokenOrder, value)
	perms := in.Permissions
	if perms == nil {
		perms = map[string]string{"contents": "read", "metadata": "read", "pull_requests": "write", "issues": "write", "checks": "write"}
	}
	selection := "all"
	if len(in.Repositories) > 0 {
		selection = "selected"
	}
	s.writeJSON(w, http.StatusCreated, map[string]any{"token": value, "expires_at": tok.expires.UTC().Format(time.RFC3339),
		"permissions": perms, "repository_selection": selection})
}

// reGit matches git smart HTTP's two requests of a fetch.
var reGit = regexp.MustCompile(`^/([^/]+)/([^/]+)\.git/(info/refs|git-upload-pack|git-receive-pack)$`)

// serveGit answers git smart HTTP as GitHub does: basic auth with an installation token it issued
// (for a repository the token may read), otherwise 401 with GitHub's realm; the repository not
// found otherwise; then git http-backend over CGI, allowing any commit to be fetched by its SHA.
func (s *Server) serveGit(w http.ResponseWriter, r *http.Request, owner, repo, rest string) {
	name := owner + "/" + repo
	op := "git/upload-pack"
	if rest == "info/refs" {
		op = "git/info-refs"
	}
	call := Call{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Operation: op}
	s.mu.Lock()
	s.calls = append(s.calls, call)
	fail := s.failure(call)
	g, bin := s.Repos[name], s.git
	_, pass, hasAuth := r.BasicAuth()
	tok := s.tokens[pass]
	s.mu.Unlock()
	unauthorized := func() {
		w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
		http.Error(w, "Invalid username or token. Password authentication is not supported for Git operations.", http.StatusUnauthorized)
	}
	if fail != nil {
		if fail.status == http.StatusUnauthorized {
			unauthorized()
			return
		}
		http.Error(w, http.StatusText(fail.status), fail.status)
		return
	}
	service := r.URL.Query().Get("service")
	switch {
	case rest == "git-receive-pack" || service == "git-receive-pack":
		http.Error(w, fmt.Sprintf("Permission to %s.git denied.", name), http.StatusForbidden)
		return
	case rest == "info/refs" && (r.Method != http.MethodGet || service != "git-upload-pack"),
		rest == "git-upload-pack" && r.Method != http.MethodPost:
		http.Error(w, "Not Found", http.StatusNotFound)
		return
	}
	if !hasAuth || tok == nil || time.Now().After(tok.expires) {
		unauthorized()
		return
	}
	if g == nil || (len(tok.repos) > 0 && !slices.Contains(tok.repos, repo)) {
		http.Error(w, "Repository not found.", http.StatusNotFound)
		return
	}
	h := &cgi.Handler{
		Path: bin, Args: []string{"http-backend"}, Root: "/" + name + ".git",
		Env: []string{
			"GIT_PROJECT_ROOT=" + g.Dir, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull,
			// GitHub lets a client fetch any commit of the repository by its SHA.
			"GIT_CONFIG_COUNT=2",
			"GIT_CONFIG_KEY_0=uploadpack.allowReachableSHA1InWant", "GIT_CONFIG_VALUE_0=true",
			"GIT_CONFIG_KEY_1=uploadpack.allowAnySHA1InWant", "GIT_CONFIG_VALUE_1=true",
		},
	}
	h.ServeHTTP(w, r)
}

// gitOut runs git in the repository.
func (g *GitRepo) gitOut(args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", g.Dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

// commit resolves ref to a commit id, or "" when the repository has no such commit.
func (g *GitRepo) commit(ref string) string {
	if ref == "" || strings.HasPrefix(ref, "-") {
		return ""
	}
	out, err := g.gitOut("rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// size is the repository's size in KB as GitHub reports it: its objects on disk.
func (g *GitRepo) size() int {
	if g.SizeKB != 0 {
		return g.SizeKB
	}
	out, err := g.gitOut("count-objects", "-v")
	if err != nil {
		return 0
	}
	kb := 0
	for _, l := range strings.Split(string(out), "\n") {
		k, v, _ := strings.Cut(l, ": ")
		if k == "size" || k == "size-pack" {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			kb += n
		}
	}
	return max(kb, 1)
}

// repoJSON answers GET /repos/{owner}/{repo} (s.mu held).
func (s *Server) repoJSON(w http.ResponseWriter, owner, repo string) {
	name := owner + "/" + repo
	size, known := 0, false
	if g := s.Repos[name]; g != nil {
		size, known = g.size(), true
	}
	for key := range s.PRs {
		known = known || strings.HasPrefix(key, name+"#")
	}
	if !known {
		s.writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	s.writeJSON(w, http.StatusOK, map[string]any{
		"id": 1296269, "node_id": "MDEwOlJlcG9zaXRvcnkxMjk2MjY5", "name": repo, "full_name": name,
		"owner":   map[string]any{"login": owner, "type": "Organization"},
		"private": true, "visibility": "private", "html_url": s.URL + "/" + name, "url": s.URL + "/repos/" + name,
		"default_branch": "main", "size": size, "fork": false, "archived": false,
	})
}

// gitContents answers the contents API from the repository: a file's content (base64; "none"
// with no content past 1 MB, as GitHub does), or a directory's entries (s.mu held).
func (s *Server) gitContents(w http.ResponseWriter, g *GitRepo, name, p, ref string) {
	if ref == "" {
		ref = "HEAD"
	}
	sha := g.commit(ref)
	if sha == "" {
		s.writeError(w, http.StatusNotFound, "No commit found for the ref "+ref)
		return
	}
	p = strings.Trim(p, "/")
	kind, err := g.gitOut("cat-file", "-t", sha+":"+p)
	if err != nil {
		s.writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	links := func(p, objSHA, kind string) map[string]any {
		self := fmt.Sprintf("%s/repos/%s/contents/%s?ref=%s", s.URL, name, p, ref)
		gitURL := fmt.Sprintf("%s/repos/%s/git/%s/%s", s.URL, name, map[bool]string{true: "trees", false: "blobs"}[kind == "dir"], objSHA)
		html := fmt.Sprintf("%s/%s/blob/%s/%s", s.URL, name, ref, p)
		m := map[string]any{"name": path.Base(p), "path": p, "sha": objSHA, "url": self, "git_url": gitURL, "html_url": html,
			"download_url": nil, "_links": map[string]any{"self": self, "git": gitURL, "html": html}}
		if kind == "file" {
			m["download_url"] = fmt.Sprintf("%s/raw/%s/%s/%s", s.URL, name, ref, p)
		}
		return m
	}
	if strings.TrimSpace(string(kind)) == "blob" {
		data, err := g.gitOut("cat-file", "blob", sha+":"+p)
		if err != nil {
			s.writeError(w, http.StatusInternalServerError, "Server Error")
			return
		}
		objSHA, _ := g.gitOut("rev-parse", sha+":"+p)
		m := links(p, strings.TrimSpace(string(objSHA)), "file")
		m["type"], m["size"], m["encoding"], m["content"] = "file", len(data), "base64", base64.StdEncoding.EncodeToString(data)
		if len(data) > 1<<20 {
			m["encoding"], m["content"] = "none", ""
		}
		s.writeJSON(w, http.StatusOK, m)
		return
	}
	out, err := g.gitOut("ls-tree", "-l", "-z", sha+":"+p)
	if err != nil {
		s.writeError(w, http.StatusInternalServerError, "Server Error")
		return
	}
	list := []any{}
	for _, entry := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		meta, file, ok := strings.Cut(entry, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			continue
		}
		mode, objType, objSHA := f[0], f[1], f[2]
		size, _ := strconv.Atoi(f[3])
		kind := "file" // a submodule is listed as a file, as GitHub lists it
		switch {
		case objType == "tree":
			kind = "dir"
		case mode == "120000":
			kind = "symlink"
		}
		m := links(path.Join(p, file), objSHA, kind)
		m["type"], m["size"] = kind, size
		list = append(list, m)
	}
	s.writeJSON(w, http.StatusOK, list)
}

// gitCompare answers the compare API from the repository: the status and counts of head against
// base, their merge base, the commits and the changed files with their patches, from the merge
// base to head, as GitHub computes them (s.mu held).
func (s *Server) gitCompare(w http.ResponseWriter, g *GitRepo, base, head string) {
	const doc = "https://docs.github.com/rest/commits/commits#compare-two-commits"
	b, h := g.commit(base), g.commit(head)
	if b == "" || h == "" {
		s.writeJSON(w, http.StatusNotFound, map[string]any{"message": "Not Found", "documentation_url": doc, "status": "404"})
		return
	}
	mbOut, err := g.gitOut("merge-base", b, h)
	if err != nil {
		s.writeJSON(w, http.StatusNotFound, map[string]any{"message": fmt.Sprintf("No common ancestor between %s and %s.", base, head), "documentation_url": doc, "status": "404"})
		return
	}
	mb := strings.TrimSpace(string(mbOut))
	counts, err := g.gitOut("rev-list", "--left-right", "--count", b+"..."+h)
	if err != nil {
		s.writeError(w, http.StatusInternalServerError, "Server Error")
		return
	}
	var behind, ahead int
	fmt.Sscan(string(counts), &behind, &ahead)
	status := "diverged"
	switch {
	case ahead == 0 && behind == 0:
		status = "identical"
	case behind == 0:
		status = "ahead"
	case ahead == 0:
		status = "behind"
	}
	commits := []any{}
	if out, err := g.gitOut("log", "--reverse", "--format=%H%x00%B%x01", mb+".."+h); err == nil {
		for _, c := range strings.Split(string(out), "\x01") {
			sha, msg, ok := strings.Cut(strings.TrimLeft(c, "\n"), "\x00")
			if ok {
				commits = append(commits, map[string]any{"sha": sha, "commit": map[string]any{"message": strings.TrimSpace(msg)}})
			}
		}
	}
	files, err := g.changedFiles(mb, h)
	if err != nil {
		s.writeError(w, http.StatusInternalServerError, "Server Error")
		return
	}
	s.writeJSON(w, http.StatusOK, map[string]any{
		"status": status, "ahead_by": ahead, "behind_by": behind, "total_commits": ahead,
		"base_commit": map[string]any{"sha": b}, "merge_base_commit": map[string]any{"sha": mb},
		"commits": commits, "files": files,
	})
}

// changedFiles are the files of the compare API between two commits: name, status, counts and
// the patch (the diff's hunks, without its headers).
func (g *GitRepo) changedFiles(from, to string) ([]any, error) {
	out, err := g.gitOut("diff", "--name-status", "-z", "-M", from, to)
	if err != nil {
		return nil, err
	}
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	files := []any{}
	for i := 0; i+1 < len(fields); i++ {
		code, old, name := fields[i], "", fields[i+1]
		i++
		if strings.HasPrefix(code, "R") && i+1 < len(fields) {
			old, name = name, fields[i+1]
			i++
		}
		status := map[byte]string{'A': "added", 'D': "removed", 'M': "modified", 'R': "renamed", 'T': "changed"}[code[0]]
		paths := []string{name}
		if old != "" {
			paths = append(paths, old)
		}
		diff, err := g.gitOut(append([]string{"diff", "--no-color", "--no-ext-diff", "-M", from, to, "--"}, paths...)...)
		if err != nil {
			return nil, err
		}
		patch, adds, dels := "", 0, 0
		if at := bytes.Index(diff, []byte("\n@@")); at >= 0 {
			patch = string(diff[at+1:])
			for _, l := range strings.Split(patch, "\n") {
				switch {
				case strings.HasPrefix(l, "+"):
					adds++
				case strings.HasPrefix(l, "-"):
					dels++
				}
			}
		}
		f := map[string]any{"filename": name, "status": status, "additions": adds, "deletions": dels, "changes": adds + dels}
		if patch != "" {
			f["patch"] = strings.TrimSuffix(patch, "\n")
		}
		if old != "" {
			f["previous_filename"] = old
		}
		files = append(files, f)
	}
	return files, nil
}
