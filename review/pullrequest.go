package review

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

// PullRequest names a pull request (or an issue, for design debates).
type PullRequest struct {
	Owner  string
	Repo   string
	Number int
}

func (p PullRequest) String() string { return fmt.Sprintf("%s/%s#%d", p.Owner, p.Repo, p.Number) }

// Repository is "owner/name".
func (p PullRequest) Repository() string { return p.Owner + "/" + p.Repo }

// PullRequestReader is what reading a pull request's change needs of GitHub: its metadata, its
// diff, its files page by page when the diff is refused, its commit messages and the head content
// of files.
type PullRequestReader interface {
	// PullRequest is the pull request's metadata.
	PullRequest(ctx context.Context, pr PullRequest) (*github.PullRequest, error)
	// PullDiff is the pull request's diff; GitHub refuses a very large one (406 or 422).
	PullDiff(ctx context.Context, pr PullRequest) (string, error)
	FileLister
	CommitReader
	FileReader
}

// FileLister lists a pull request's files with their patches, a page at a time.
type FileLister interface {
	// PullFiles is one page of the files (0 is the first), with the next page, 0 after the last.
	PullFiles(ctx context.Context, pr PullRequest, page int) ([]*github.CommitFile, int, error)
}

// CommitReader reads the messages of a pull request's commits, a page at a time.
type CommitReader interface {
	// PullCommitMessages is one page of the messages (0 is the first), with the next page, 0
	// after the last.
	PullCommitMessages(ctx context.Context, pr PullRequest, page int) ([]string, int, error)
}

// FileReader reads a file of the pull request's repository at a commit.
type FileReader interface {
	// File is the content of path at ref; a *DecodeError when GitHub sent it in a form that could
	// not be decoded.
	File(ctx context.Context, pr PullRequest, path, ref string) ([]byte, error)
}

// ReadPullRequest reads a pull request through the API: its metadata, its diff (the diff media
// type, falling back to the paginated files API when GitHub refuses a very large diff), and the
// head content of the changed files the AST analyzers need. Each resource is read once; ignored
// paths are dropped before any content is fetched.
// meta is the pull request when the caller already read it, nil otherwise.
func ReadPullRequest(ctx context.Context, gh PullRequestReader, pr PullRequest, meta *github.PullRequest, ignore []string, maxDiff int64) (*change.Change, error) {
	if meta == nil {
		var err error
		if meta, err = gh.PullRequest(ctx, pr); err != nil {
			return nil, fmt.Errorf("failed to get pull request %s: %w", pr, err)
		}
	}
	source := pr.String()
	var c *change.Change
	raw, err := gh.PullDiff(ctx, pr)
	switch {
	case err == nil && int64(len(raw)) <= maxDiff:
		c, err = ParseDiff([]byte(raw), source)
		if err != nil {
			return nil, err
		}
	case err == nil || tooLarge(err):
		if c, err = ReadFiles(ctx, gh, pr, source); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("failed to get the diff of %s: %w", pr, err)
	}
	c.Title, c.Body = meta.GetTitle(), meta.GetBody()
	c.BaseRef, c.HeadRef, c.HeadSHA = meta.GetBase().GetRef(), meta.GetHead().GetRef(), meta.GetHead().GetSHA()
	if err := DropIgnored(c, ignore); err != nil {
		return nil, err
	}
	ReadCommitMessages(ctx, gh, pr, c)
	FillContents(ctx, gh, pr, c)
	return c, nil
}

// maxCommitMessages is how many commits of a pull request GitHub lists (250).
const maxCommitMessages = 250

// ReadCommitMessages reads the messages of the pull request's commits into the change, so that
// text addressed to the reviewer there is found too; when they cannot be read, a note says so.
func ReadCommitMessages(ctx context.Context, gh CommitReader, pr PullRequest, c *change.Change) {
	page := 0
	for len(c.Commits) < maxCommitMessages {
		msgs, next, err := gh.PullCommitMessages(ctx, pr, page)
		if err != nil {
			c.Notes = append(c.Notes, "commit messages unavailable: "+scan.Clip(err.Error(), 200))
			return
		}
		c.Commits = append(c.Commits, msgs...)
		if next == 0 {
			return
		}
		page = next
	}
}

// tooLarge recognises GitHub's refusal to render a diff (406 "diff too large" or 422).
func tooLarge(err error) bool {
	return hasStatus(err, http.StatusNotAcceptable, http.StatusUnprocessableEntity)
}

// ReadFiles rebuilds the diff from the paginated files API.
func ReadFiles(ctx context.Context, gh FileLister, pr PullRequest, source string) (*change.Change, error) {
	var all []*github.CommitFile
	page := 0
	for {
		files, next, err := gh.PullFiles(ctx, pr, page)
		if err != nil {
			return nil, fmt.Errorf("failed to list the files of %s: %w", pr, err)
		}
		all = append(all, files...)
		if next == 0 {
			break
		}
		page = next
	}
	return filesChange(all, source)
}

// filesChange turns the files of the files or compare API (each with its patch) into a Change.
func filesChange(files []*github.CommitFile, source string) (*change.Change, error) {
	var b strings.Builder
	var notes []string
	for _, f := range files {
		if f.GetPatch() == "" {
			notes = append(notes, fmt.Sprintf("%s: no patch (binary or too large), left out", f.GetFilename()))
			continue
		}
		oldName, newName := "a/"+f.GetFilename(), "b/"+f.GetFilename()
		if f.GetPreviousFilename() != "" {
			oldName = "a/" + f.GetPreviousFilename()
		}
		header := fmt.Sprintf("diff --git %s %s\n", oldName, newName)
		switch f.GetStatus() {
		case "added":
			header += "new file mode 100644\n"
			oldName = "/dev/null"
		case "removed":
			header += "deleted file mode 100644\n"
			newName = "/dev/null"
		}
		fmt.Fprintf(&b, "%s--- %s\n+++ %s\n%s\n", header, oldName, newName, strings.TrimSuffix(f.GetPatch(), "\n"))
	}
	if b.Len() == 0 {
		return &change.Change{Source: source, Notes: notes}, nil
	}
	c, err := ParseDiff([]byte(b.String()), source)
	if err != nil {
		return nil, err
	}
	c.Notes = append(c.Notes, notes...)
	return c, nil
}
