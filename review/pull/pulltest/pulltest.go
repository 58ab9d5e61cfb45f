// Package pulltest is a plain fake of what reviewing a pull request reads of GitHub, for unit
// tests that need no HTTP server: a Fake holds a pull request's metadata, diff, files and commit
// messages, the files of its repository at commits, comparisons, merge bases and collaborators'
// permissions in maps and slices, and implements the reading interfaces of review and
// review/pull (review.PullRequestReader, review.Comparer, review.TreeReader, pull.ConfigReader,
// pull.Permissions, pull.MergeBaser, pull.SinceReader) as review.GitHub does over the API. The
// HTTP-level fake, review/githubtest, stays for the publisher and the end-to-end tests.
package pulltest

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/google/go-github/v62/github"

	"github.com/debatebot/debatebot/review"
)

// Fake is a pull request and its repository. The zero value answers 404 to everything but the
// lists, which are empty; it is safe for concurrent use once filled.
type Fake struct {
	// Meta is the pull request's metadata.
	Meta *github.PullRequest
	// Diff is the pull request's diff.
	Diff string
	// Files are the pull request's files, PerPage a page.
	Files []*github.CommitFile
	// Commits are the messages of the pull request's commits, PerPage a page.
	Commits []string
	// PerPage is the page size of Files and Commits; 100 when 0.
	PerPage int
	// Trees are the repository's files at each ref (the default branch's is ""): ref, then path,
	// then content. A directory is any prefix of a path.
	Trees map[string]map[string]string
	// Comparisons are GitHub's comparisons by "base...head"; one missing is a 404.
	Comparisons map[string]Comparison
	// MergeBases are merge bases by "base...head"; one missing is "".
	MergeBases map[string]string
	// Roles are the collaborators' roles by login; a login missing is no collaborator (404).
	Roles map[string]Role
	// Errors make requests fail: by method ("PullDiff", "PullFiles", "File", ...), or by method
	// and its subject ("File path@ref", "Dir path@ref", "Compare base...head",
	// "CollaboratorPermission login").
	Errors map[string]error

	mu    sync.Mutex
	calls []string
}

// Comparison is GitHub's comparison of two commits.
type Comparison struct {
	// Status is "ahead", "behind", "diverged" or "identical".
	Status string
	Files  []*github.CommitFile
}

// Role is a collaborator's permission: GitHub's role_name and its legacy permission field.
type Role struct {
	Name, Permission string
}

// Status is the error GitHub's client returns for an answer with the HTTP status code and
// message ("Not Found", "diff too large", ...).
func Status(code int, message string) error {
	return &github.ErrorResponse{Response: &http.Response{StatusCode: code, Request: &http.Request{Method: http.MethodGet}}, Message: message}
}

// Calls are the requests made so far, each as its method and subject ("PullFiles page=2",
// "File go.mod@abc123"), in order.
func (f *Fake) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// Count is how many requests so far began with prefix.
func (f *Fake) Count(prefix string) int {
	n := 0
	for _, c := range f.Calls() {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

// call records a request and returns the error set for its method or for it.
func (f *Fake) call(method, subject string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	name := method + " " + subject
	f.calls = append(f.calls, name)
	if err := f.Errors[name]; err != nil {
		return err
	}
	return f.Errors[method]
}

// PullRequest is Meta.
func (f *Fake) PullRequest(_ context.Context, pr review.PullRequest) (*github.PullRequest, error) {
	if err := f.call("PullRequest", pr.String()); err != nil {
		return nil, err
	}
	if f.Meta == nil {
		return nil, Status(http.StatusNotFound, "Not Found")
	}
	return f.Meta, nil
}

// PullDiff is Diff.
func (f *Fake) PullDiff(_ context.Context, pr review.PullRequest) (string, error) {
	if err := f.call("PullDiff", pr.String()); err != nil {
		return "", err
	}
	return f.Diff, nil
}

// PullFiles is one page of Files.
func (f *Fake) PullFiles(_ context.Context, _ review.PullRequest, page int) ([]*github.CommitFile, int, error) {
	if err := f.call("PullFiles", fmt.Sprintf("page=%d", page)); err != nil {
		return nil, 0, err
	}
	return pageOf(f.Files, page, f.PerPage)
}

// PullCommitMessages is one page of Commits.
func (f *Fake) PullCommitMessages(_ context.Context, _ review.PullRequest, page int) ([]string, int, error) {
	if err := f.call("PullCommitMessages", fmt.Sprintf("page=%d", page)); err != nil {
		return nil, 0, err
	}
	return pageOf(f.Commits, page, f.PerPage)
}

// pageOf is page (from 1; 0 is 1) of all, per a page (100 when 0), with the next page.
func pageOf[T any](all []T, page, per int) ([]T, int, error) {
	if per <= 0 {
		per = 100
	}
	if page == 0 {
		page = 1
	}
	from := min((page-1)*per, len(all))
	to := min(from+per, len(all))
	next := 0
	if to < len(all) {
		next = page + 1
	}
	return all[from:to], next, nil
}

// File is the content of path at ref in Trees; a directory is an error, as review.GitHub says.
func (f *Fake) File(_ context.Context, pr review.PullRequest, p, ref string) ([]byte, error) {
	if err := f.call("File", p+"@"+ref); err != nil {
		return nil, err
	}
	tree, ok := f.Trees[ref]
	if content, found := tree[p]; ok && found {
		return []byte(content), nil
	}
	if len(f.entries(tree, p)) > 0 {
		return nil, fmt.Errorf("%s of %s is a directory", p, pr.Repository())
	}
	return nil, Status(http.StatusNotFound, "Not Found")
}

// Dir lists the files and directories directly in p at ref ("" is the root); a directory the
// commit lacks is a 404.
func (f *Fake) Dir(_ context.Context, _ review.PullRequest, p, ref string) ([]review.Entry, error) {
	if err := f.call("Dir", p+"@"+ref); err != nil {
		return nil, err
	}
	tree, ok := f.Trees[ref]
	entries := f.entries(tree, p)
	if !ok || (len(entries) == 0 && p != "") {
		return nil, Status(http.StatusNotFound, "Not Found")
	}
	return entries, nil
}

// entries are the files and directories directly in directory d of tree, by name.
func (f *Fake) entries(tree map[string]string, d string) []review.Entry {
	prefix := ""
	if d != "" && d != "." {
		prefix = strings.TrimSuffix(d, "/") + "/"
	}
	seen := map[string]review.Entry{}
	for p, content := range tree {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok || rest == "" {
			continue
		}
		if name, _, isDir := strings.Cut(rest, "/"); isDir {
			seen[name] = review.Entry{Name: name, Path: path.Join(prefix, name), Type: "dir"}
		} else {
			seen[name] = review.Entry{Name: name, Path: p, Type: "file", Size: len(content)}
		}
	}
	out := make([]review.Entry, 0, len(seen))
	for _, e := range seen {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Compare is Comparisons["base...head"].
func (f *Fake) Compare(_ context.Context, _ review.PullRequest, base, head string) (string, []*github.CommitFile, error) {
	key := base + "..." + head
	if err := f.call("Compare", key); err != nil {
		return "", nil, err
	}
	cmp, ok := f.Comparisons[key]
	if !ok {
		return "", nil, Status(http.StatusNotFound, "Not Found")
	}
	return cmp.Status, cmp.Files, nil
}

// MergeBase is MergeBases["base...head"].
func (f *Fake) MergeBase(_ context.Context, _ review.PullRequest, base, head string) (string, error) {
	key := base + "..." + head
	if err := f.call("MergeBase", key); err != nil {
		return "", err
	}
	return f.MergeBases[key], nil
}

// CollaboratorPermission is Roles[user].
func (f *Fake) CollaboratorPermission(_ context.Context, _ review.PullRequest, user string) (string, string, error) {
	if err := f.call("CollaboratorPermission", user); err != nil {
		return "", "", err
	}
	r, ok := f.Roles[user]
	if !ok {
		return "", "", Status(http.StatusNotFound, "Not Found")
	}
	return r.Name, r.Permission, nil
}
