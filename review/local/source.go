package local

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/pipeline"
)

// Options are what `debatebot debate` is asked: exactly one of a diff (- for stdin), a git range
// or a question, or a kept debate to resume, and how to debate it.
type Options struct {
	Diff, Git, Question, Protocol, ConfigFile, Depth string
	// Dir is the repository of --git, or the base checkout of --diff when DirSet.
	Dir                 string
	DirSet, Checkpoints bool
	MaxDiff             int64
	// Resume is a kept debate's id; StoreURL is the store (default: DEBATEBOT_DATABASE_URL,
	// else DefaultStore; off: none).
	Resume, StoreURL string
}

// Source is what a local debate began with, kept beside its checkpoints so that --resume
// can rebuild the same change and debate it under the same configuration, whatever the working
// directory or the files are by then.
type Source struct {
	// ID is the debate's id: a new one for each run (NewSource), the kept one on --resume.
	ID string `json:"id,omitempty"`
	// Stable is the id the change gives whatever the run (review.Debate.StableID), so that
	// --resume can tell that the source, rebuilt, still gives the same change.
	Stable string `json:"stable_id,omitempty"`
	// Kind is "diff", "git" or "question".
	Kind string `json:"kind"`
	// Name is the diff's file name (or stdin), or the git range as given.
	Name string `json:"name,omitempty"`
	// Diff is the diff's text as read, so that a moved or edited file does not change what is
	// resumed.
	Diff string `json:"diff,omitempty"`
	// Base is the absolute directory of the diff's base checkout (--dir), or the git repository.
	Base string `json:"base,omitempty"`
	// Range is the git range at the commits it resolved to, so that a branch that moved since
	// does not change what is resumed.
	Range    string `json:"range,omitempty"`
	Question string `json:"question,omitempty"`
	// Config is the text of the debatebot.yml given with --config (empty: the embedded
	// defaults), and ConfigName its file name, for errors.
	Config      string `json:"config,omitempty"`
	ConfigName  string `json:"config_name,omitempty"`
	Protocol    string `json:"protocol,omitempty"`
	Depth       string `json:"depth,omitempty"`
	Checkpoints bool   `json:"checkpoints,omitempty"`
	// MaxDiff is the largest diff accepted, as the flags say (not kept).
	MaxDiff int64 `json:"-"`
}

// NewSource reads what the flags name: the diff's text, the git range's commits, the question,
// and the configuration's text.
func NewSource(ctx context.Context, f *Options, stdin io.Reader) (*Source, error) {
	id, err := NewID()
	if err != nil {
		return nil, err
	}
	src := &Source{ID: id, Question: f.Question, Protocol: f.Protocol, Depth: f.Depth, Checkpoints: f.Checkpoints, MaxDiff: f.MaxDiff}
	if f.ConfigFile != "" {
		data, err := os.ReadFile(f.ConfigFile)
		if err != nil {
			return nil, &pipeline.UsageError{Msg: fmt.Sprintf("cannot read config %s: %v", f.ConfigFile, unwrapPath(err))}
		}
		src.Config, src.ConfigName = string(data), f.ConfigFile
	}
	switch {
	case f.Diff != "":
		src.Kind, src.Name = "diff", f.Diff
		data, err := readDiffText(f.Diff, stdin, f.MaxDiff)
		if err != nil {
			return nil, err
		}
		src.Diff = string(data)
		if src.Name == "-" {
			src.Name = "stdin"
		}
		if f.DirSet {
			if src.Base, err = filepath.Abs(f.Dir); err != nil {
				return nil, fmt.Errorf("failed to resolve --dir %s: %w", f.Dir, err)
			}
		}
	case f.Git != "":
		src.Kind, src.Name = "git", f.Git
		dir, err := filepath.Abs(f.Dir)
		if err != nil {
			return nil, fmt.Errorf("failed to resolve --dir %s: %w", f.Dir, err)
		}
		src.Base = dir
		src.Range = f.Git
		base, head, ok := strings.Cut(f.Git, "..")
		if ok && base != "" {
			// Resolved here so that a resume debates the same commits; an unresolvable range
			// is left as given, for FromGit to explain.
			head = strings.TrimPrefix(head, ".")
			if head == "" {
				head = "HEAD"
			}
			b, berr := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "--verify", "--quiet", base+"^{commit}").Output()
			h, herr := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "--verify", "--quiet", head+"^{commit}").Output()
			if berr == nil && herr == nil {
				src.Range = strings.TrimSpace(string(b)) + ".." + strings.TrimSpace(string(h))
			}
		}
	default:
		src.Kind = "question"
	}
	return src, nil
}

// NewID is a new debate id for a local run, in the form of the App's ("deb-" and 12 hex digits).
func NewID() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("failed to make the debate's id: %w", err)
	}
	return "deb-" + hex.EncodeToString(b[:]), nil
}

// Read implements pipeline.Source: the change rebuilt, or the question.
func (src *Source) Read(ctx context.Context) (*pipeline.Subject, error) {
	c, err := src.Change(ctx, src.MaxDiff)
	if err != nil {
		return nil, err
	}
	return &pipeline.Subject{Change: c, Question: src.Question}, nil
}

// Change rebuilds the change the source names (nil for a question).
func (src *Source) Change(ctx context.Context, max int64) (*change.Change, error) {
	switch src.Kind {
	case "diff":
		r := strings.NewReader(src.Diff)
		if src.Base != "" {
			return review.ReadDiffOnBase(r, src.Name, max, src.Base)
		}
		c, err := review.ReadDiff(r, src.Name, max)
		if err == nil {
			c.NoTrees = review.HunksOnlyNote
		}
		return c, err
	case "git":
		c, err := review.FromGit(ctx, src.Base, src.Range)
		if err == nil {
			// The transcript names the range as the user gave it, not its commits.
			c.Source = "git " + src.Name
		}
		return c, err
	case "question":
		return nil, nil
	}
	return nil, fmt.Errorf("the kept debate's source has unknown kind %q", src.Kind)
}

// readDiffText reads the diff at name (- for stdin), at most max+1 bytes: the parser says when
// it is too large.
func readDiffText(name string, stdin io.Reader, max int64) ([]byte, error) {
	if max <= 0 {
		max = review.DefaultMaxDiffBytes
	}
	if name == "-" {
		data, err := io.ReadAll(io.LimitReader(stdin, max+1))
		if err != nil {
			return nil, fmt.Errorf("failed to read the diff from stdin: %w", err)
		}
		return data, nil
	}
	st, err := os.Stat(name)
	if err != nil {
		return nil, &review.InputError{Source: name, Problem: "cannot read: " + unwrapPath(err).Error()}
	}
	if st.IsDir() {
		return nil, &review.InputError{Source: name, Problem: "is a directory, not a diff file"}
	}
	file, err := os.Open(name)
	if err != nil {
		return nil, &review.InputError{Source: name, Problem: "cannot read: " + unwrapPath(err).Error()}
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, max+1))
	if err != nil {
		return nil, &review.InputError{Source: name, Problem: "cannot read: " + unwrapPath(err).Error()}
	}
	return data, nil
}

// unwrapPath drops the path from *fs.PathError, which the caller already names.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
