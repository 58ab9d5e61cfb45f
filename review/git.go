package review

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/debatebot/debatebot/review/change"
)

// DefaultMaxFileBytes bounds the content read for one file; larger files are analysed from
// their diff lines only.
const DefaultMaxFileBytes = 1 << 20

// FromGit reads the change BASE..HEAD (or BASE...HEAD) of the repository at dir with the git
// command, with the head content of every changed text file, and the commit messages of the range
// as the change's body.
func FromGit(ctx context.Context, dir, spec string) (*change.Change, error) {
	source := "git " + spec
	base, head, ok := strings.Cut(spec, "..")
	head = strings.TrimPrefix(head, ".")
	if !ok || base == "" {
		return nil, &InputError{source, "want a range BASE..HEAD, e.g. main..HEAD"}
	}
	if head == "" {
		head = "HEAD"
	}
	if _, err := git(ctx, dir, "rev-parse", "--is-inside-work-tree"); err != nil {
		return nil, &InputError{source, fmt.Sprintf("%s is not inside a git repository", dir)}
	}
	for _, ref := range []string{base, head} {
		if _, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); err != nil {
			return nil, &InputError{source, fmt.Sprintf("unknown revision %q", ref)}
		}
	}
	diff, err := git(ctx, dir, "diff", "--no-color", "--no-ext-diff", "-M", spec)
	if err != nil {
		return nil, fmt.Errorf("failed to diff %s: %w", spec, err)
	}
	c, err := ParseDiff(diff, source)
	if err != nil {
		return nil, err
	}
	sha, err := git(ctx, dir, "rev-parse", head+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("failed to resolve %s: %w", head, err)
	}
	c.BaseRef, c.HeadRef, c.HeadSHA = base, head, strings.TrimSpace(string(sha))
	// The base tree is the one the diff is taken from: the merge base for BASE...HEAD.
	baseRev := base + "^{commit}"
	if strings.Contains(spec, "...") {
		mb, err := git(ctx, dir, "merge-base", base, head)
		if err != nil {
			return nil, fmt.Errorf("failed to find the merge base of %s: %w", spec, err)
		}
		baseRev = strings.TrimSpace(string(mb))
	}
	baseSHA, err := git(ctx, dir, "rev-parse", baseRev)
	if err != nil {
		return nil, fmt.Errorf("failed to resolve %s: %w", base, err)
	}
	c.Trees = gitTrees(c, dir, strings.TrimSpace(string(baseSHA)), c.HeadSHA, DefaultTreeLimits())
	if subject, err := git(ctx, dir, "log", "-1", "--format=%s", head); err == nil {
		c.Title = strings.TrimSpace(string(subject))
	}
	if body, err := git(ctx, dir, "log", "--format=%B", spec); err == nil {
		c.Body = strings.TrimSpace(string(body))
	}
	for _, f := range c.Files {
		if f.Status == change.StatusDeleted {
			continue
		}
		size, err := git(ctx, dir, "cat-file", "-s", head+":"+f.Path)
		if err != nil {
			continue
		}
		var n int
		if _, err := fmt.Sscan(string(size), &n); err != nil || n > DefaultMaxFileBytes {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: larger than %d KiB, analysed from its diff only", f.Path, DefaultMaxFileBytes>>10))
			continue
		}
		content, err := git(ctx, dir, "show", head+":"+f.Path)
		if err != nil {
			return nil, fmt.Errorf("failed to read %s at %s: %w", f.Path, head, err)
		}
		f.Content, f.HasContent = content, true
	}
	return c, nil
}

func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
