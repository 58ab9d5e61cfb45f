package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/debatebot/debatebot/handlers"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
)

// defaultStore is where `debatebot debate` keeps its debates when DEBATEBOT_DATABASE_URL is not
// set: the same default as serve's, so that a local store is one file in the working directory.
const defaultStore = "sqlite:debatebot.db"

// errQuit is the terminal's [Q]uit at a checkpoint: the debate stops where it is, kept in the
// store, to be resumed with --resume.
var errQuit = errors.New("stopped at the checkpoint to resume later")

// localSource is what a local debate began with, kept beside its checkpoints so that --resume
// can rebuild the same change and debate it under the same configuration, whatever the working
// directory or the files are by then.
type localSource struct {
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
}

// newSource reads what the flags name: the diff's text, the git range's commits, the question,
// and the configuration's text.
func newSource(ctx context.Context, f *debateFlags, stdin io.Reader) (*localSource, error) {
	src := &localSource{Question: f.question, Protocol: f.protocol, Depth: f.depth, Checkpoints: f.checkpoints}
	if f.configFile != "" {
		data, err := os.ReadFile(f.configFile)
		if err != nil {
			return nil, &usageError{fmt.Sprintf("cannot read config %s: %v", f.configFile, unwrapPath(err))}
		}
		src.Config, src.ConfigName = string(data), f.configFile
	}
	switch {
	case f.diff != "":
		src.Kind, src.Name = "diff", f.diff
		data, err := readDiffText(f.diff, stdin, f.maxDiff)
		if err != nil {
			return nil, err
		}
		src.Diff = string(data)
		if src.Name == "-" {
			src.Name = "stdin"
		}
		if f.dirSet {
			if src.Base, err = filepath.Abs(f.dir); err != nil {
				return nil, fmt.Errorf("failed to resolve --dir %s: %w", f.dir, err)
			}
		}
	case f.git != "":
		src.Kind, src.Name = "git", f.git
		dir, err := filepath.Abs(f.dir)
		if err != nil {
			return nil, fmt.Errorf("failed to resolve --dir %s: %w", f.dir, err)
		}
		src.Base = dir
		src.Range = f.git
		base, head, ok := strings.Cut(f.git, "..")
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

// change rebuilds the change the source names (nil for a question).
func (src *localSource) change(ctx context.Context, max int64) (*change.Change, error) {
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

// openLocalStore opens the store the flags or the environment name; nil when --store off.
func openLocalStore(ctx context.Context, f *debateFlags, getenv func(string) string) (*store.Store, error) {
	url := f.storeURL
	if url == "" {
		url = getenv("DEBATEBOT_DATABASE_URL")
	}
	if url == "" {
		url = defaultStore
	}
	if url == "off" {
		return nil, nil
	}
	st, err := store.Open(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("cannot open the local store (--store or DEBATEBOT_DATABASE_URL): %w", err)
	}
	return st, nil
}

// resumable reads the kept debate --resume names and what it began with.
func resumable(ctx context.Context, st *store.Store, f *debateFlags) (*localSource, *store.Debate, error) {
	row, err := st.Debate(ctx, f.resume)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, &usageError{fmt.Sprintf("--resume %s: no such debate in the store ('debatebot debate --list' lists them)", f.resume)}
	}
	if err != nil {
		return nil, nil, err
	}
	if len(row.Source) == 0 {
		return nil, nil, &usageError{fmt.Sprintf("--resume %s: the debate was started by the App (%s on %s#%d), which resumes it itself", row.ID, row.Trigger, row.Repository, row.PRNumber)}
	}
	var src localSource
	if err := json.Unmarshal(row.Source, &src); err != nil {
		return nil, nil, fmt.Errorf("failed to read what debate %s began with: %w", row.ID, err)
	}
	return &src, row, nil
}

// resumeFrom prepares d to go on from the kept debate's last checkpoint. A decided debate is not
// run again: its kept transcript is returned, to be printed.
func resumeFrom(d *review.Debate, row *store.Debate, stderr io.Writer) (*toulmin.Transcript, error) {
	if id := d.ID(); id != row.ID {
		// The same source, rebuilt, is a different change: the base checkout of a --dir
		// debate was edited, or the configuration chose another protocol.
		return nil, fmt.Errorf("--resume %s: what the debate began with no longer gives the same change (it gives debate %s); was the base directory changed?", row.ID, id)
	}
	var t *toulmin.Transcript
	if len(row.Checkpoint) > 0 {
		t = &toulmin.Transcript{}
		if err := json.Unmarshal(row.Checkpoint, t); err != nil {
			return nil, fmt.Errorf("failed to read the kept transcript of debate %s: %w", row.ID, err)
		}
	}
	if row.Decision != "" && t != nil {
		fmt.Fprintf(stderr, "debatebot: debate %s was decided on %s (%s); here is its transcript\n", row.ID, stamp(row.EndedAt), row.Decision)
		return t, nil
	}
	d.Prior = t
	return nil, nil
}

// runKept runs the debate, keeping it in st (when there is one) after every phase and once
// decided. A debate stopped before its decision says how to resume it.
func runKept(ctx context.Context, d *review.Debate, src *localSource, st *store.Store, fresh bool, stderr io.Writer) (*toulmin.Transcript, error) {
	if st == nil {
		return d.Run(ctx)
	}
	id := d.ID()
	source, err := json.Marshal(src)
	if err != nil {
		return nil, fmt.Errorf("failed to encode what debate %s began with: %w", id, err)
	}
	head := ""
	if d.Change != nil {
		head = d.Change.HeadSHA
	}
	if fresh {
		if err := st.BeginDebate(ctx, &store.Debate{ID: id, Trigger: "cli", Protocol: d.Protocol.Name, HeadSHA: head, StartedAt: time.Now(), Source: source}); err != nil {
			return nil, err
		}
	}
	phases := 0
	if d.Prior != nil {
		phases = len(d.Prior.Timeline)
	}
	d.Checkpoint = func(ctx context.Context, t *toulmin.Transcript) error {
		cp, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("failed to encode the checkpoint of %s: %w", t.DebateID, err)
		}
		// Kept even while the debate is being interrupted: it is what --resume needs.
		if err := st.SaveCheckpoint(context.WithoutCancel(ctx), &store.Debate{ID: t.DebateID, Trigger: "cli", Protocol: t.Protocol, HeadSHA: head,
			Phases: len(t.Timeline), Checkpoint: cp, StartedAt: t.StartedAt}); err != nil {
			return err
		}
		phases = len(t.Timeline)
		return nil
	}
	t, err := d.Run(ctx)
	if err != nil {
		if phases > 0 {
			fmt.Fprintf(stderr, "debatebot: debate %s stopped after %d phase(s); resume it with: debatebot debate --resume %s\n", id, phases, id)
		}
		if errors.Is(err, errQuit) {
			return nil, errStopped
		}
		return nil, err
	}
	row, err := handlers.DecidedRow(t, 0, "", 0, "cli", "")
	if err != nil {
		return nil, err
	}
	row.Source = source
	if err := st.FinishDebate(context.WithoutCancel(ctx), row); err != nil {
		fmt.Fprintf(stderr, "debatebot: the decided debate was not kept: %v\n", err)
	}
	return t, nil
}

// errStopped ends the command without output and without an error message: the debate was
// stopped on purpose, and runKept said how to resume it.
var errStopped = errors.New("stopped")

// listDebates prints the store's debates, newest first.
func listDebates(ctx context.Context, f *debateFlags, stdout io.Writer, getenv func(string) string) error {
	st, err := openLocalStore(ctx, f, getenv)
	if err != nil {
		return err
	}
	defer st.Close()
	ds, err := st.Debates(ctx)
	if err != nil {
		return err
	}
	if len(ds) == 0 {
		fmt.Fprintln(stdout, "no debates kept in the store yet")
		return nil
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tSTATE\tPROTOCOL\tPHASES\tTOKENS\tSUBJECT")
	for i := len(ds) - 1; i >= 0; i-- {
		d := ds[i]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\n", d.ID, stamp(d.StartedAt), state(d), d.Protocol, d.Phases, d.Prompt+d.Completion, subject(ctx, st, d))
	}
	tw.Flush()
	_, err = stdout.Write(b.Bytes())
	return err
}

// state says where a kept debate stands.
func state(d store.Debate) string {
	switch {
	case d.Decision != "":
		return d.Decision
	case d.Trigger != "cli":
		return "running or stopped (the App resumes it)"
	case d.Phases == 0:
		return "stopped before its first phase"
	}
	return "stopped: --resume"
}

// subject names what a kept debate is about: the App's pull request, or a local debate's diff,
// range or question.
func subject(ctx context.Context, st *store.Store, d store.Debate) string {
	if d.Repository != "" {
		return fmt.Sprintf("%s#%d (%s)", d.Repository, d.PRNumber, d.Trigger)
	}
	full, err := st.Debate(ctx, d.ID)
	if err != nil || len(full.Source) == 0 {
		return ""
	}
	var src localSource
	if json.Unmarshal(full.Source, &src) != nil {
		return ""
	}
	switch src.Kind {
	case "question":
		return redact.Redact(scan.Clip(strings.Join(strings.Fields(src.Question), " "), 60))
	case "git":
		return "git " + src.Name
	}
	return src.Name
}

func stamp(t time.Time) string { return t.Local().Format("2006-01-02 15:04") }
