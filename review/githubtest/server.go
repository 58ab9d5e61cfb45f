// Package githubtest is a GitHub REST API for tests, on loopback: installation tokens, pull
// requests (JSON and diff media types), files and comments with pagination and Link headers,
// contents, collaborator permissions, check runs, labels and reactions, pull request reviews and
// review comments (refusing lines outside the diff with 422, as GitHub does; listed with since,
// sort and direction from their times), their replies and reactions, and the pull_request_review_comment deliveries about them (replies.go), with rate-limit headers,
// GitHub's error bodies, and injectable 5xx and secondary rate limits. Every request is checked
// against the list of real operations (testdata/github-rest-ops.tsv, from ../shared/fixtures).
// Repositories added with AddGitRepo are served over git smart HTTP (git http-backend), with the
// installation tokens the fake issued, and answer the repository, contents and compare APIs from
// their commits. With SetOAuth it is also the App's OAuth client for sign-in (the web flow's
// authorize page and access_token exchange, GET /user), and a user's token sees only the
// private repositories Permissions grants that user.
package githubtest

import (
	"bufio"
	"cmp"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

//go:embed testdata/github-rest-ops.tsv
var restOps string

type op struct {
	method string
	re     *regexp.Regexp
	id     string
}

var ops = func() []op {
	var out []op
	sc := bufio.NewScanner(strings.NewReader(restOps))
	for sc.Scan() {
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) != 3 {
			continue
		}
		pattern := regexp.QuoteMeta(parts[1])
		// {path} of the contents API spans segments (and is empty for the repository's root
		// directory, as GitHub serves it); every other {name} is one segment.
		pattern = strings.ReplaceAll(pattern, `\{path\}`, `.*`)
		pattern = regexp.MustCompile(`\\\{[a-z_]+\\\}`).ReplaceAllString(pattern, `[^/]+`)
		out = append(out, op{method: parts[0], re: regexp.MustCompile("^" + pattern + "$"), id: parts[2]})
	}
	return out
}()

// Operation returns the operationId of a request, or "" when GitHub has no such operation.
func Operation(method, path string) string {
	for _, o := range ops {
		if o.method == method && o.re.MatchString(path) {
			return o.id
		}
	}
	return ""
}

// Call is one request the server received.
type Call struct {
	Method string
	Path   string
	Query  string
	Accept string
	Body   string
	// Operation is the REST operationId, or git/info-refs and git/upload-pack for the two
	// requests of a git fetch (no REST operation).
	Operation string
}

// Comment is an issue comment.
type Comment struct {
	ID   int64
	Body string
	User string
}

// CheckRun is a check run.
type CheckRun struct {
	ID         int64
	Name       string
	HeadSHA    string
	Status     string
	Conclusion string
	Title      string
	Summary    string
	// Annotations are every annotation the check run received, in order (GitHub appends the
	// annotations of each update to those it has).
	Annotations []Annotation
	// Conclusions counts the requests that set a conclusion.
	Conclusions int
}

// Annotation is one annotation of a check run.
type Annotation struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Level     string `json:"annotation_level"`
	Message   string `json:"message"`
	Title     string `json:"title"`
}

// MaxAnnotations is how many annotations GitHub takes in one check-run request.
const MaxAnnotations = 50

// PR is a pull request the server knows.
type PR struct {
	Title, Body      string
	BaseRef, HeadRef string
	// BaseSHA is the base branch's commit ("base0000" when empty).
	BaseSHA string
	HeadSHA string
	Draft   bool
	Diff    string
	// DiffTooLarge makes the diff media type answer 406, as GitHub does for huge diffs.
	DiffTooLarge bool
	// Files are what the files API lists: filename, status, patch.
	Files []map[string]any
	// Commits are the messages of the pull request's commits, oldest first.
	Commits []string
}

type failure struct {
	method, prefix string
	match          func(Call) bool
	status         int
	times          int
}

// Server is the fake GitHub.
type Server struct {
	*httptest.Server
	t  testing.TB
	mu sync.Mutex

	calls       []Call
	Slug        string
	PRs         map[string]*PR         // "owner/repo#n"
	Contents    map[string]string      // "owner/repo@ref:path"
	Permissions map[string]string      // "owner/repo:user" -> admin|write|read|none
	Comments    map[string][]*Comment  // "owner/repo#n"
	Labels      map[string][]string    // "owner/repo#n"
	CheckRuns   map[string][]*CheckRun // "owner/repo"
	Reactions   map[int64][]string     // comment id -> contents
	// Reviews and ReviewComments are the pull request reviews and the comments on lines of the
	// diff, "owner/repo#n" (reviews.go).
	Reviews        map[string][]*Review
	ReviewComments map[string][]*ReviewComment
	// Compares answers the compare API: "owner/repo@base...head" -> files (status "ahead").
	// Any other comparison of two commits the repository holds answers "diverged"; one of a
	// commit it does not hold answers 404, as GitHub does for the old head after a force push.
	Compares map[string][]map[string]any
	// Commits are commits a repository holds, "owner/repo@sha", besides its pull requests'
	// current heads and base branches and the ends of Compares.
	Commits map[string]bool
	// Unrelated are comparisons, "owner/repo@base...head", of commits without a common
	// ancestor: GitHub answers them 404 "No common ancestor between base and head."
	Unrelated map[string]bool
	// Repos are the repositories held in git, "owner/repo" (see AddGitRepo).
	Repos map[string]*GitRepo
	// TokenLifetime is how long the installation tokens the fake issues live (GitHub's hour when
	// 0); git refuses an expired one with 401.
	TokenLifetime time.Duration
	failures      []*failure
	denials       []func(Call) bool
	nextID        int64
	tokens        map[string]*token
	tokenOrder    []string
	// git is the git binary that serves Repos (set by AddGitRepo).
	git string
	// manifests are the Apps registered by the App manifest flow (manifest.go).
	manifests manifestState
	// oauth is the OAuth App of the web flow (SetOAuth), and oauthState its codes and tokens.
	oauth      OAuth
	oauthState oauthState
	// RunJobs are workflow runs' jobs ("owner/repo:run id"); JobLogs jobs' logs
	// ("owner/repo:job id"), served through a redirect (actions.go).
	RunJobs      map[string][]map[string]any
	JobLogs      map[string]string
	logDownloads map[int64]int
	// Issues are the issues the bot opened ("owner/repo#n").
	Issues map[string]*Issue
	// clock stamps the review comments' times (SetClock); time.Now when nil.
	clock func() time.Time
}

// New starts a fake GitHub that stops with the test.
func New(t testing.TB) *Server {
	s := &Server{
		t: t, Slug: "debatebot", PRs: map[string]*PR{}, Contents: map[string]string{}, Permissions: map[string]string{},
		Comments: map[string][]*Comment{}, Labels: map[string][]string{}, CheckRuns: map[string][]*CheckRun{},
		Reactions: map[int64][]string{}, Reviews: map[string][]*Review{}, ReviewComments: map[string][]*ReviewComment{}, Compares: map[string][]map[string]any{}, Commits: map[string]bool{}, Unrelated: map[string]bool{}, nextID: 1000,
		Repos: map[string]*GitRepo{}, tokens: map[string]*token{},
		RunJobs: map[string][]map[string]any{}, JobLogs: map[string]string{}, logDownloads: map[int64]int{}, Issues: map[string]*Issue{},
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Fail makes the next times requests whose path starts with prefix answer status.
func (s *Server) Fail(method, prefix string, status, times int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, &failure{method: method, prefix: prefix, status: status, times: times})
}

// FailIf makes requests for which match reports true answer status (a 5xx, say), times times.
func (s *Server) FailIf(match func(Call) bool, status, times int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, &failure{match: match, status: status, times: times})
}

// Deny makes every request for which match reports true answer as GitHub answers a token that
// lacks the permission (the workflow token of a pull request from a fork, which is read-only):
// 403 "Resource not accessible by integration", with no Retry-After, as nothing changes on a retry.
func (s *Server) Deny(match func(Call) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.denials = append(s.denials, match)
}

// Calls returns the requests received so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Unknown lists requests that match no real GitHub operation.
func (s *Server) Unknown() []Call {
	var out []Call
	for _, c := range s.Calls() {
		if c.Operation == "" {
			out = append(out, c)
		}
	}
	return out
}

// CommentsOn returns the comments of an issue or pull request.
func (s *Server) CommentsOn(key string) []Comment {
	return snapshot(s, func() []*Comment { return s.Comments[key] })
}

// Checks returns the check runs of a repository.
func (s *Server) Checks(repo string) []CheckRun {
	return snapshot(s, func() []*CheckRun { return s.CheckRuns[repo] })
}

// snapshot copies the values of the list get reads under s.mu, so that a test reads them while
// the server may change them; nil when the list is empty.
func snapshot[T any](s *Server, get func() []*T) []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []T
	for _, v := range get() {
		out = append(out, *v)
	}
	return out
}

// SetHead moves the head of the pull request key ("owner/repo#n") to sha, as a push would, while
// the server may be answering requests.
func (s *Server) SetHead(key, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.PRs[key].HeadSHA = sha
}

// AddComment puts a comment on an issue, as a user would.
func (s *Server) AddComment(key, user, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	s.Comments[key] = append(s.Comments[key], &Comment{ID: s.nextID, Body: body, User: user})
	return s.nextID
}

// knownCommit says whether the repository holds the commit or branch (s.mu held).
func (s *Server) knownCommit(repo, ref string) bool {
	if ref == "" {
		return false
	}
	if s.Commits[repo+"@"+ref] {
		return true
	}
	if g := s.Repos[repo]; g != nil && g.commit(ref) != "" {
		return true
	}
	for key, pr := range s.PRs {
		if strings.HasPrefix(key, repo+"#") && (pr.HeadSHA == ref || pr.BaseRef == ref || pr.HeadRef == ref) {
			return true
		}
	}
	for key := range s.Compares {
		if basehead, ok := strings.CutPrefix(key, repo+"@"); ok {
			if base, head, _ := strings.Cut(basehead, "..."); base == ref || head == ref {
				return true
			}
		}
	}
	return false
}

func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) writeError(w http.ResponseWriter, status int, msg string) {
	s.writeJSON(w, status, map[string]any{"message": msg, "documentation_url": "https://docs.github.com/rest"})
}

var (
	rePR       = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)(/files|/commits)?$`)
	reComments = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/(\d+)/comments$`)
	reComment  = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/comments/(\d+)(/reactions)?$`)
	reLabels   = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/(\d+)/labels$`)
	reLabel    = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/(\d+)/labels/([^/]+)$`)
	reChecks   = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/check-runs(?:/(\d+))?$`)
	rePerm     = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/collaborators/([^/]+)/permission$`)
	reContents = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/contents/(.*)$`)
	reRepo     = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)$`)
	reToken    = regexp.MustCompile(`^/app/installations/(\d+)/access_tokens$`)
	reCompare  = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/compare/([^/]+)$`)
)

// failure returns the injected failure the call meets, counting it (s.mu held).
func (s *Server) failure(call Call) *failure {
	for _, f := range s.failures {
		if f.times > 0 && ((f.match == nil && f.method == call.Method && strings.HasPrefix(call.Path, f.prefix)) || (f.match != nil && f.match(call))) {
			f.times--
			return f
		}
	}
	return nil
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if m := reGit.FindStringSubmatch(r.URL.Path); m != nil {
		s.serveGit(w, r, m[1], m[2], m[3])
		return
	}
	if m := reLogDownload.FindStringSubmatch(r.URL.Path); m != nil {
		s.serveLogDownload(w, r, m)
		return
	}
	body, _ := io.ReadAll(r.Body)
	if s.serveOAuth(w, r, body) || s.serveManifest(w, r, body) {
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/api/v3")
	call := Call{Method: r.Method, Path: path, Query: r.URL.RawQuery, Accept: r.Header.Get("Accept"), Body: string(body), Operation: Operation(r.Method, path)}
	s.mu.Lock()
	s.calls = append(s.calls, call)
	fail := s.failure(call)
	deny := false
	for _, match := range s.denials {
		deny = deny || match(call)
	}
	s.mu.Unlock()

	h := w.Header()
	h.Set("X-GitHub-Request-Id", fmt.Sprintf("F00D:%d", time.Now().UnixNano()))
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", "4999")
	h.Set("X-RateLimit-Used", "1")
	h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
	if call.Operation == "" {
		s.writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	if fail != nil {
		if fail.status == http.StatusForbidden {
			h.Set("Retry-After", "1")
			s.writeError(w, http.StatusForbidden, "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.")
			return
		}
		s.writeError(w, fail.status, "Server Error")
		return
	}
	if r.Header.Get("Authorization") == "" {
		s.writeError(w, http.StatusUnauthorized, "Requires authentication")
		return
	}
	if deny {
		s.writeJSON(w, http.StatusForbidden, map[string]any{"message": "Resource not accessible by integration",
			"documentation_url": "https://docs.github.com/rest", "status": "403"})
		return
	}
	s.route(w, r, path, body)
}

func (s *Server) route(w http.ResponseWriter, r *http.Request, path string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var in map[string]any
	_ = json.Unmarshal(body, &in)
	if s.routeReviews(w, r, path, body) || s.routeReviewComment(w, r, path, body) {
		return
	}
	switch {
	case s.actions(w, r, path, body):
	case path == "/app" && r.Method == http.MethodGet:
		s.writeJSON(w, 200, map[string]any{"id": 1, "slug": s.Slug, "name": s.Slug})
	case reToken.MatchString(path):
		s.issueToken(w, body)
	case path == "/user" && r.Method == http.MethodGet:
		s.authenticatedUser(w, r)
	case reRepo.MatchString(path) && r.Method == http.MethodGet && s.userOf(r) != "":
		m := reRepo.FindStringSubmatch(path)
		s.userRepoJSON(w, m[1], m[2], s.userOf(r))
	case reRepo.MatchString(path) && r.Method == http.MethodGet:
		m := reRepo.FindStringSubmatch(path)
		s.repoJSON(w, m[1], m[2])
	case rePR.MatchString(path):
		m := rePR.FindStringSubmatch(path)
		key := fmt.Sprintf("%s/%s#%s", m[1], m[2], m[3])
		pr, ok := s.PRs[key]
		if !ok {
			s.writeError(w, 404, "Not Found")
			return
		}
		if m[4] == "/commits" {
			var commits []any
			for i, msg := range pr.Commits {
				commits = append(commits, map[string]any{"sha": fmt.Sprintf("c%039d", i), "commit": map[string]any{"message": msg}})
			}
			s.paginate(w, r, commits)
			return
		}
		if m[4] != "" {
			s.paginate(w, r, toAny(pr.Files))
			return
		}
		if strings.Contains(r.Header.Get("Accept"), "diff") {
			if pr.DiffTooLarge {
				s.writeError(w, http.StatusNotAcceptable, "Sorry, the diff exceeded the maximum number of lines (20000)")
				return
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = io.WriteString(w, pr.Diff)
			return
		}
		n, _ := strconv.Atoi(m[3])
		s.writeJSON(w, 200, map[string]any{"number": n, "html_url": fmt.Sprintf("https://github.com/%s/%s/pull/%d", m[1], m[2], n), "title": pr.Title, "body": pr.Body, "draft": pr.Draft, "state": "open",
			"base": map[string]any{"ref": pr.BaseRef, "sha": cmp.Or(pr.BaseSHA, "base0000")}, "head": map[string]any{"ref": pr.HeadRef, "sha": pr.HeadSHA}})
	case reComments.MatchString(path):
		m := reComments.FindStringSubmatch(path)
		key := fmt.Sprintf("%s/%s#%s", m[1], m[2], m[3])
		if r.Method == http.MethodPost {
			s.nextID++
			c := &Comment{ID: s.nextID, Body: fmt.Sprint(in["body"]), User: s.Slug + "[bot]"}
			s.Comments[key] = append(s.Comments[key], c)
			s.writeJSON(w, 201, commentJSON(c))
			return
		}
		var list []any
		for _, c := range s.Comments[key] {
			list = append(list, commentJSON(c))
		}
		s.paginate(w, r, list)
	case reComment.MatchString(path):
		m := reComment.FindStringSubmatch(path)
		id, _ := strconv.ParseInt(m[3], 10, 64)
		if m[4] != "" {
			s.Reactions[id] = append(s.Reactions[id], fmt.Sprint(in["content"]))
			s.writeJSON(w, 201, map[string]any{"id": 1, "content": in["content"]})
			return
		}
		for _, list := range s.Comments {
			for _, c := range list {
				if c.ID == id {
					if r.Method == http.MethodPatch {
						c.Body = fmt.Sprint(in["body"])
					}
					s.writeJSON(w, 200, commentJSON(c))
					return
				}
			}
		}
		s.writeError(w, 404, "Not Found")
	case reLabel.MatchString(path) && r.Method == http.MethodDelete:
		m := reLabel.FindStringSubmatch(path)
		key := fmt.Sprintf("%s/%s#%s", m[1], m[2], m[3])
		name, _ := url.PathUnescape(m[4])
		kept, found := s.Labels[key][:0:0], false
		for _, l := range s.Labels[key] {
			if l == name {
				found = true
				continue
			}
			kept = append(kept, l)
		}
		if !found {
			s.writeError(w, 404, "Label does not exist")
			return
		}
		s.Labels[key] = kept
		out := []any{}
		for _, l := range kept {
			out = append(out, map[string]any{"name": l})
		}
		s.writeJSON(w, 200, out)
	case reLabels.MatchString(path):
		m := reLabels.FindStringSubmatch(path)
		key := fmt.Sprintf("%s/%s#%s", m[1], m[2], m[3])
		var labels []string
		_ = json.Unmarshal(body, &labels)
		if len(labels) == 0 {
			var obj struct{ Labels []string }
			_ = json.Unmarshal(body, &obj)
			labels = obj.Labels
		}
		s.Labels[key] = append(s.Labels[key], labels...)
		var out []any
		for _, l := range s.Labels[key] {
			out = append(out, map[string]any{"name": l})
		}
		s.writeJSON(w, 200, out)
	case reChecks.MatchString(path):
		m := reChecks.FindStringSubmatch(path)
		repo := m[1] + "/" + m[2]
		annotations, msg := checkOutput(body)
		if msg != "" {
			s.writeJSON(w, 422, map[string]any{"message": msg, "documentation_url": "https://docs.github.com/rest/checks/runs#update-a-check-run", "status": "422"})
			return
		}
		var cr *CheckRun
		if m[3] == "" {
			s.nextID++
			cr = &CheckRun{ID: s.nextID}
			s.CheckRuns[repo] = append(s.CheckRuns[repo], cr)
		} else {
			id, _ := strconv.ParseInt(m[3], 10, 64)
			for _, c := range s.CheckRuns[repo] {
				if c.ID == id {
					cr = c
				}
			}
			if cr == nil {
				s.writeError(w, 404, "Not Found")
				return
			}
		}
		if v, ok := in["name"].(string); ok {
			cr.Name = v
		}
		if v, ok := in["head_sha"].(string); ok {
			cr.HeadSHA = v
		}
		if v, ok := in["status"].(string); ok {
			cr.Status = v
		}
		if v, ok := in["conclusion"].(string); ok {
			if v == "action_required" && in["details_url"] == nil {
				s.validationFailed(w, "CheckRun", "missing_field", "details_url")
				return
			}
			cr.Conclusion = v
			cr.Conclusions++
		}
		if out, ok := in["output"].(map[string]any); ok {
			cr.Title, cr.Summary = fmt.Sprint(out["title"]), fmt.Sprint(out["summary"])
		}
		cr.Annotations = append(cr.Annotations, annotations...)
		s.writeJSON(w, map[bool]int{true: 201, false: 200}[m[3] == ""], map[string]any{"id": cr.ID, "name": cr.Name, "status": cr.Status, "conclusion": cr.Conclusion})
	case reCompare.MatchString(path):
		m := reCompare.FindStringSubmatch(path)
		repo, basehead := m[1]+"/"+m[2], m[3]
		if files, ok := s.Compares[repo+"@"+basehead]; ok {
			s.writeJSON(w, 200, map[string]any{"status": "ahead", "ahead_by": 1, "behind_by": 0, "total_commits": 1, "files": toAny(files)})
			return
		}
		base, head, ok := strings.Cut(basehead, "...")
		if !ok {
			base, head, _ = strings.Cut(basehead, "..")
		}
		if g := s.Repos[repo]; g != nil {
			s.gitCompare(w, g, base, head)
			return
		}
		const doc = "https://docs.github.com/rest/commits/commits#compare-two-commits"
		switch {
		case !s.knownCommit(repo, base) || !s.knownCommit(repo, head):
			s.writeJSON(w, 404, map[string]any{"message": "Not Found", "documentation_url": doc, "status": "404"})
		case s.Unrelated[repo+"@"+basehead]:
			s.writeJSON(w, 404, map[string]any{"message": fmt.Sprintf("No common ancestor between %s and %s.", base, head), "documentation_url": doc, "status": "404"})
		default:
			// Both commits exist, and the head does not descend from the base (a force push).
			s.writeJSON(w, 200, map[string]any{"status": "diverged", "ahead_by": 1, "behind_by": 1, "total_commits": 1, "files": []any{}})
		}
	case rePerm.MatchString(path):
		m := rePerm.FindStringSubmatch(path)
		perm, ok := s.Permissions[m[1]+"/"+m[2]+":"+m[3]]
		if !ok {
			s.writeError(w, 404, m[3]+" is not a user")
			return
		}
		// The legacy permission field knows only admin, write, read and none: GitHub reports
		// maintain as write and triage as read there, and the role itself in role_name.
		legacy := map[string]string{"maintain": "write", "triage": "read"}[perm]
		if legacy == "" {
			legacy = perm
		}
		s.writeJSON(w, 200, map[string]any{"permission": legacy, "role_name": perm, "user": map[string]any{"login": m[3]}})
	case reContents.MatchString(path):
		m := reContents.FindStringSubmatch(path)
		key := fmt.Sprintf("%s/%s@%s:%s", m[1], m[2], r.URL.Query().Get("ref"), m[3])
		content, ok := s.Contents[key]
		if g := s.Repos[m[1]+"/"+m[2]]; !ok && g != nil {
			s.gitContents(w, g, m[1]+"/"+m[2], m[3], r.URL.Query().Get("ref"))
			return
		}
		if !ok {
			s.writeError(w, 404, "Not Found")
			return
		}
		s.writeJSON(w, 200, map[string]any{"type": "file", "encoding": "base64", "path": m[3], "name": m[3][strings.LastIndex(m[3], "/")+1:],
			"size": len(content), "content": base64.StdEncoding.EncodeToString([]byte(content))})
	default:
		s.writeError(w, 404, "Not Found")
	}
}

// checkOutput reads the annotations of a check-run request and checks them as GitHub does: at
// most 50 per request (GitHub's own answer otherwise, word for word), and an output with its
// title and summary, each annotation with its path, lines, level and message. It returns the
// annotations, or the message of the 422 GitHub answers.
func checkOutput(body []byte) ([]Annotation, string) {
	var in struct {
		Output *struct {
			Title       *string           `json:"title"`
			Summary     *string           `json:"summary"`
			Annotations []json.RawMessage `json:"annotations"`
		} `json:"output"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.Output == nil {
		return nil, ""
	}
	if n := len(in.Output.Annotations); n > MaxAnnotations {
		return nil, fmt.Sprintf("Invalid request.\n\nNo more than %d items are allowed; %d were supplied.", MaxAnnotations, n)
	}
	for field, v := range map[string]*string{"title": in.Output.Title, "summary": in.Output.Summary} {
		if v == nil {
			return nil, fmt.Sprintf("Invalid request.\n\n%q wasn't supplied.", field)
		}
	}
	var out []Annotation
	for _, raw := range in.Output.Annotations {
		var fields map[string]any
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, "Invalid request.\n\n" + err.Error()
		}
		for _, f := range []string{"path", "start_line", "end_line", "annotation_level", "message"} {
			if _, ok := fields[f]; !ok {
				return nil, fmt.Sprintf("Invalid request.\n\n%q wasn't supplied.", f)
			}
		}
		var a Annotation
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, "Invalid request.\n\n" + err.Error() // a field of the wrong type
		}
		switch a.Level {
		case "notice", "warning", "failure":
		default:
			return nil, fmt.Sprintf("Invalid request.\n\nFor 'items', %q is not a member of [\"notice\", \"warning\", \"failure\"].", a.Level)
		}
		if a.StartLine < 1 || a.EndLine < a.StartLine {
			return nil, fmt.Sprintf("Invalid request.\n\nFor 'items', lines %d to %d are not a range of the file.", a.StartLine, a.EndLine)
		}
		out = append(out, a)
	}
	return out, ""
}

func toAny(ms []map[string]any) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}

func commentJSON(c *Comment) map[string]any {
	return map[string]any{"id": c.ID, "body": c.Body, "user": map[string]any{"login": c.User, "type": "User"}}
}

// paginate answers one page of list with GitHub's Link header.
func (s *Server) paginate(w http.ResponseWriter, r *http.Request, list []any) {
	out, link := s.page(r, list)
	if link != "" {
		w.Header().Set("Link", link)
	}
	s.writeJSON(w, 200, out)
}

// page returns the page of list the request asks for (per_page, at most 100 as on GitHub, and
// page; 30 a page from the first) and GitHub's Link header: the next and last pages, and the
// first and previous ones after the first ("" when the list fits on one page).
func (s *Server) page(r *http.Request, list []any) ([]any, string) {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 {
		per = 30
	}
	per = min(per, 100)
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if page <= 0 {
		page = 1
	}
	last := (len(list) + per - 1) / per
	start, end := min((page-1)*per, len(list)), min(page*per, len(list))
	link := func(p int, rel string) string {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(p))
		q.Set("per_page", strconv.Itoa(per))
		return fmt.Sprintf("<%s%s?%s>; rel=%q", s.URL, r.URL.Path, q.Encode(), rel)
	}
	var links []string
	if page > 1 && last > 0 {
		links = append(links, link(min(page-1, last), "prev"))
	}
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 && last > 0 {
		links = append(links, link(1, "first"))
	}
	out := list[start:end]
	if out == nil {
		out = []any{}
	}
	return out, strings.Join(links, ", ")
}

// Keys lists a map's keys in order, for messages.
func Keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
