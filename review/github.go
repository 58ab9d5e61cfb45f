package review

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/google/go-github/v62/github"
)

// GitHub is the one adapter of the small interfaces through which the domain code talks to the
// GitHub API: reading a change (PullRequestReader, Comparer, TreeReader here; pull.ConfigReader,
// pull.Permissions, pull.MergeBaser and pull.SinceReader), and the App's jobs' reads of CI runs,
// a commit's pull requests, the repository and its issues (in handlers). Each method is one
// request (one page of a list), and GitHub's errors come back as they are, so that callers can
// tell a 404 or a refused diff by its status. What the App posts goes through review/publish.
type GitHub struct {
	gh *github.Client
}

// NewGitHub reads through gh.
func NewGitHub(gh *github.Client) *GitHub { return &GitHub{gh: gh} }

// DecodeError is a file GitHub returned in an encoding that could not be decoded.
type DecodeError struct{ Err error }

func (e *DecodeError) Error() string { return e.Err.Error() }

// Unwrap is the decoder's error.
func (e *DecodeError) Unwrap() error { return e.Err }

// Entry is a file or directory listed in a directory of a repository.
type Entry struct {
	// Name is the entry's base name, Path its path in the repository.
	Name, Path string
	// Type is "file", "dir", "symlink" or "submodule".
	Type string
	// Size is the file's size in bytes.
	Size int
}

// listPage is the page size of the paginated lists.
const listPage = 100

// PullRequest is the pull request's metadata.
func (g *GitHub) PullRequest(ctx context.Context, pr PullRequest) (*github.PullRequest, error) {
	meta, _, err := g.gh.PullRequests.Get(ctx, pr.Owner, pr.Repo, pr.Number)
	return meta, err
}

// PullDiff is the pull request's diff (the diff media type).
func (g *GitHub) PullDiff(ctx context.Context, pr PullRequest) (string, error) {
	raw, _, err := g.gh.PullRequests.GetRaw(ctx, pr.Owner, pr.Repo, pr.Number, github.RawOptions{Type: github.Diff})
	return raw, err
}

// PullFiles is one page (from 1; 0 is the first) of the pull request's files, with the next
// page, 0 after the last.
func (g *GitHub) PullFiles(ctx context.Context, pr PullRequest, page int) ([]*github.CommitFile, int, error) {
	files, resp, err := g.gh.PullRequests.ListFiles(ctx, pr.Owner, pr.Repo, pr.Number, &github.ListOptions{PerPage: listPage, Page: page})
	if err != nil {
		return nil, 0, err
	}
	return files, resp.NextPage, nil
}

// PullCommitMessages is one page of the messages of the pull request's commits, with the next
// page, 0 after the last.
func (g *GitHub) PullCommitMessages(ctx context.Context, pr PullRequest, page int) ([]string, int, error) {
	commits, resp, err := g.gh.PullRequests.ListCommits(ctx, pr.Owner, pr.Repo, pr.Number, &github.ListOptions{PerPage: listPage, Page: page})
	if err != nil {
		return nil, 0, err
	}
	msgs := make([]string, 0, len(commits))
	for _, rc := range commits {
		msgs = append(msgs, rc.GetCommit().GetMessage())
	}
	return msgs, resp.NextPage, nil
}

// File is the content of the file at path on ref (the default branch when ref is empty): an
// error from GitHub as it is, a path that is a directory an error, and content GitHub sent in an
// encoding that could not be decoded a *DecodeError.
func (g *GitHub) File(ctx context.Context, pr PullRequest, path, ref string) ([]byte, error) {
	var opts *github.RepositoryContentGetOptions
	if ref != "" {
		opts = &github.RepositoryContentGetOptions{Ref: ref}
	}
	fc, _, _, err := g.gh.Repositories.GetContents(ctx, pr.Owner, pr.Repo, path, opts)
	if err != nil {
		return nil, err
	}
	if fc == nil {
		return nil, fmt.Errorf("%s of %s is a directory", path, pr.Repository())
	}
	content, err := fc.GetContent()
	if err != nil {
		return nil, &DecodeError{Err: err}
	}
	return []byte(content), nil
}

// Dir lists the directory at path on ref ("" is the root).
func (g *GitHub) Dir(ctx context.Context, pr PullRequest, path, ref string) ([]Entry, error) {
	_, entries, _, err := g.gh.Repositories.GetContents(ctx, pr.Owner, pr.Repo, path, &github.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(entries))
	for _, e := range entries {
		out = append(out, Entry{Name: e.GetName(), Path: e.GetPath(), Type: e.GetType(), Size: e.GetSize()})
	}
	return out, nil
}

// Compare is GitHub's comparison of head with base: its status ("ahead", "behind", "diverged",
// "identical") and the files it changed, with their patches.
func (g *GitHub) Compare(ctx context.Context, pr PullRequest, base, head string) (string, []*github.CommitFile, error) {
	cmp, _, err := g.gh.Repositories.CompareCommits(ctx, pr.Owner, pr.Repo, base, head, &github.ListOptions{PerPage: listPage})
	if err != nil {
		return "", nil, err
	}
	return cmp.GetStatus(), cmp.Files, nil
}

// MergeBase is the merge base of base and head by the compare API; "" when GitHub names none.
func (g *GitHub) MergeBase(ctx context.Context, pr PullRequest, base, head string) (string, error) {
	cmp, _, err := g.gh.Repositories.CompareCommits(ctx, pr.Owner, pr.Repo, base, head, &github.ListOptions{PerPage: 1})
	if err != nil {
		return "", err
	}
	return cmp.GetMergeBaseCommit().GetSHA(), nil
}

// CollaboratorPermission is user's role on the repository (GitHub's role_name) and the legacy
// permission field; GitHub answers 404 for someone who is not a collaborator.
func (g *GitHub) CollaboratorPermission(ctx context.Context, pr PullRequest, user string) (role, permission string, err error) {
	req, err := g.gh.NewRequest(http.MethodGet, fmt.Sprintf("repos/%s/%s/collaborators/%s/permission", url.PathEscape(pr.Owner), url.PathEscape(pr.Repo), url.PathEscape(user)), nil)
	if err != nil {
		return "", "", err
	}
	var level struct {
		Permission string `json:"permission"`
		RoleName   string `json:"role_name"`
	}
	if _, err := g.gh.Do(ctx, req, &level); err != nil {
		return "", "", err
	}
	return level.RoleName, level.Permission, nil
}

// PullRequestsWithCommit is one page (0 is the first) of the pull requests GitHub associates
// with commit sha, with the next page, 0 after the last.
func (g *GitHub) PullRequestsWithCommit(ctx context.Context, pr PullRequest, sha string, page int) ([]*github.PullRequest, int, error) {
	list, resp, err := g.gh.PullRequests.ListPullRequestsWithCommit(ctx, pr.Owner, pr.Repo, sha, &github.ListOptions{PerPage: listPage, Page: page})
	if err != nil {
		return nil, 0, err
	}
	return list, resp.NextPage, nil
}

// WorkflowJobs is one page (0 is the first) of the latest attempt's jobs of workflow run runID,
// with the next page, 0 after the last.
func (g *GitHub) WorkflowJobs(ctx context.Context, pr PullRequest, runID int64, page int) ([]*github.WorkflowJob, int, error) {
	opts := &github.ListWorkflowJobsOptions{Filter: "latest", ListOptions: github.ListOptions{PerPage: listPage, Page: page}}
	jobs, resp, err := g.gh.Actions.ListWorkflowJobs(ctx, pr.Owner, pr.Repo, runID, opts)
	if err != nil {
		return nil, 0, err
	}
	return jobs.Jobs, resp.NextPage, nil
}

// JobLogURL is where GitHub redirects for the log of workflow job jobID: a short-lived URL on
// its log storage, to be fetched without the installation's token.
func (g *GitHub) JobLogURL(ctx context.Context, pr PullRequest, jobID int64) (*url.URL, error) {
	u, _, err := g.gh.Actions.GetWorkflowJobLogs(ctx, pr.Owner, pr.Repo, jobID, 0)
	return u, err
}

// CheckRunAnnotations is the first page (100) of check run runID's annotations.
func (g *GitHub) CheckRunAnnotations(ctx context.Context, pr PullRequest, runID int64) ([]*github.CheckRunAnnotation, error) {
	anns, _, err := g.gh.Checks.ListCheckRunAnnotations(ctx, pr.Owner, pr.Repo, runID, &github.ListOptions{PerPage: listPage})
	return anns, err
}

// Repository is the pull request's repository (its visibility, among others).
func (g *GitHub) Repository(ctx context.Context, pr PullRequest) (*github.Repository, error) {
	repo, _, err := g.gh.Repositories.Get(ctx, pr.Owner, pr.Repo)
	return repo, err
}

// Issue is issue (or pull request) number of the pull request's repository.
func (g *GitHub) Issue(ctx context.Context, pr PullRequest, number int) (*github.Issue, error) {
	is, _, err := g.gh.Issues.Get(ctx, pr.Owner, pr.Repo, number)
	return is, err
}

// EditIssueBody replaces the body of issue number of the pull request's repository.
func (g *GitHub) EditIssueBody(ctx context.Context, pr PullRequest, number int, body string) error {
	_, _, err := g.gh.Issues.Edit(ctx, pr.Owner, pr.Repo, number, &github.IssueRequest{Body: github.String(body)})
	return err
}

// ReactToComment adds a reaction ("+1", "eyes", "confused", ...) to issue comment commentID.
func (g *GitHub) ReactToComment(ctx context.Context, pr PullRequest, commentID int64, content string) error {
	_, _, err := g.gh.Reactions.CreateIssueCommentReaction(ctx, pr.Owner, pr.Repo, commentID, content)
	return err
}

// NotFound says whether err is GitHub's 404.
func NotFound(err error) bool {
	return hasStatus(err, http.StatusNotFound)
}

// hasStatus says whether err is a GitHub error response with one of the statuses.
func hasStatus(err error, statuses ...int) bool {
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil {
		return false
	}
	for _, s := range statuses {
		if er.Response.StatusCode == s {
			return true
		}
	}
	return false
}
