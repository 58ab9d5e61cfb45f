package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/pipeline"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
)

// DefaultStore is where `debatebot debate` keeps its debates when neither --store nor
// DEBATEBOT_DATABASE_URL says: debatebot.db in the user's data directory (config.DataDir), which
// it creates; never the working directory.
func DefaultStore(getenv func(string) string) (string, error) {
	dir, err := config.DataDir(getenv)
	if err != nil {
		return "", fmt.Errorf("%w (give --store sqlite:PATH)", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("cannot create the data directory for the local store (give --store sqlite:PATH): %w", err)
	}
	return "sqlite:" + filepath.Join(dir, "debatebot.db"), nil
}

// ErrQuit is the terminal's [Q]uit at a checkpoint: the debate stops where it is, kept in the
// store, to be resumed with --resume.
var ErrQuit = errors.New("stopped at the checkpoint to resume later")

// OpenStore opens the store url or the environment names, else the default store; nil when off.
func OpenStore(ctx context.Context, url string, getenv func(string) string) (*store.Store, error) {
	if url == "" {
		url = getenv("DEBATEBOT_DATABASE_URL")
	}
	if url == "" {
		var err error
		if url, err = DefaultStore(getenv); err != nil {
			return nil, err
		}
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

// Latest is the id of the newest local debate in the store that was stopped before its
// decision (--resume without an id).
func Latest(ctx context.Context, st *store.Store) (string, error) {
	ds, err := st.Debates(ctx)
	if err != nil {
		return "", fmt.Errorf("failed to list the kept debates: %w", err)
	}
	for i := len(ds) - 1; i >= 0; i-- {
		if d := ds[i]; d.Trigger == "cli" && d.Decision == "" {
			return d.ID, nil
		}
	}
	return "", &pipeline.UsageError{Msg: "--resume: no stopped debate to resume in the store ('debatebot debate --list' lists the kept ones; give --resume ID to print a decided one)"}
}

// Resumable reads the kept debate id (--resume) and what it began with.
func Resumable(ctx context.Context, st *store.Store, id string) (*Source, *store.Debate, error) {
	row, err := st.Debate(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, &pipeline.UsageError{Msg: fmt.Sprintf("--resume %s: no such debate in the store ('debatebot debate --list' lists them)", id)}
	}
	if err != nil {
		return nil, nil, err
	}
	if len(row.Source) == 0 {
		return nil, nil, &pipeline.UsageError{Msg: fmt.Sprintf("--resume %s: the debate was started by the App (%s on %s#%d), which resumes it itself", row.ID, row.Trigger, row.Repository, row.PRNumber)}
	}
	var src Source
	if err := json.Unmarshal(row.Source, &src); err != nil {
		return nil, nil, fmt.Errorf("failed to read what debate %s began with: %w", row.ID, err)
	}
	// A debate kept before runs had ids of their own has its stable id.
	src.ID = row.ID
	return &src, row, nil
}

// Keeper keeps a local debate in the store after every phase and once decided, so that
// --resume goes on where it stopped (an interrupt, a [Q]uit at a checkpoint, a crash).
type Keeper struct {
	Store  *store.Store
	Source *Source
	// Row is the kept debate --resume names; nil for a new debate.
	Row    *store.Debate
	Stderr io.Writer

	id, head string
	source   []byte
	// phases is how many phases are kept; decided is set once the debate was decided.
	phases  int
	decided bool
}

// Resume implements pipeline.Keeper: a new debate is begun in the store, with what it began
// with; a kept one must give the same debate again, and goes on from its last checkpoint, or,
// decided, is not run again: its kept transcript is returned, to be printed.
func (k *Keeper) Resume(ctx context.Context, d *review.Debate) (*toulmin.Transcript, error) {
	if k.Row != nil {
		t, err := k.resume(d)
		if err != nil || t != nil {
			return t, err
		}
	}
	k.id = d.ID()
	k.Source.Stable = d.StableID()
	source, err := json.Marshal(k.Source)
	if err != nil {
		return nil, fmt.Errorf("failed to encode what debate %s began with: %w", k.id, err)
	}
	k.source = source
	if d.Change != nil {
		k.head = d.Change.HeadSHA
	}
	if k.Row == nil {
		if err := k.Store.BeginDebate(ctx, &store.Debate{ID: k.id, Trigger: "cli", Protocol: d.Protocol.Name, HeadSHA: k.head, StartedAt: time.Now(), Source: source}); err != nil {
			return nil, err
		}
	}
	if d.Prior != nil {
		k.phases = len(d.Prior.Timeline)
	}
	return nil, nil
}

// resume reads the kept debate's last checkpoint into d.Prior, or returns its transcript when it
// was decided.
func (k *Keeper) resume(d *review.Debate) (*toulmin.Transcript, error) {
	row := k.Row
	want := k.Source.Stable
	if want == "" {
		// Kept before runs had ids of their own: its id is the stable one.
		want = row.ID
	}
	if got := d.StableID(); got != want {
		// The same source, rebuilt, is a different change: the base checkout of a --dir
		// debate was edited, or the configuration chose another protocol.
		return nil, fmt.Errorf("--resume %s: what the debate began with no longer gives the same change; was the base directory changed?", row.ID)
	}
	var t *toulmin.Transcript
	if len(row.Checkpoint) > 0 {
		t = &toulmin.Transcript{}
		if err := json.Unmarshal(row.Checkpoint, t); err != nil {
			return nil, fmt.Errorf("failed to read the kept transcript of debate %s: %w", row.ID, err)
		}
	}
	if row.Decision != "" && t != nil {
		fmt.Fprintf(k.Stderr, "debatebot: debate %s was decided on %s (%s); here is its transcript\n", row.ID, stamp(row.EndedAt), row.Decision)
		k.decided = true
		return t, nil
	}
	d.Prior = t
	return nil, nil
}

// Checkpoint implements pipeline.Keeper; a phase is kept even while the debate is being
// interrupted: it is what --resume needs.
func (k *Keeper) Checkpoint(ctx context.Context, t *toulmin.Transcript) error {
	cp, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("failed to encode the checkpoint of %s: %w", t.DebateID, err)
	}
	if err := k.Store.SaveCheckpoint(context.WithoutCancel(ctx), &store.Debate{ID: t.DebateID, Trigger: "cli", Protocol: t.Protocol, HeadSHA: k.head,
		Phases: len(t.Timeline), Checkpoint: cp, StartedAt: t.StartedAt}); err != nil {
		return err
	}
	k.phases = len(t.Timeline)
	return nil
}

// Finish implements pipeline.Keeper: the decided debate is kept with what it began with; a
// failure to keep it is said, and the debate printed all the same.
func (k *Keeper) Finish(ctx context.Context, d *review.Debate, t *toulmin.Transcript) error {
	k.decided = true
	row, err := pipeline.DecidedRow(t, 0, "", 0, "cli", "")
	if err != nil {
		return err
	}
	row.Source = k.source
	if err := k.Store.FinishDebate(context.WithoutCancel(ctx), row); err != nil {
		fmt.Fprintf(k.Stderr, "debatebot: the decided debate was not kept: %v\n", err)
	}
	return nil
}

// Stopped says how to resume a debate that err stopped before its decision, after at least one
// kept phase; it returns ErrStopped for a [Q]uit at a checkpoint, err otherwise.
func (k *Keeper) Stopped(err error) error {
	if k.phases > 0 && !k.decided {
		fmt.Fprintf(k.Stderr, "debatebot: debate %s stopped after %d phase(s); resume it with: debatebot debate --resume %s\n", k.id, k.phases, k.id)
	}
	if errors.Is(err, ErrQuit) {
		return ErrStopped
	}
	return err
}

// ErrStopped ends the command without output and without an error message: the debate was
// stopped on purpose, and Keeper.Stopped said how to resume it.
var ErrStopped = errors.New("stopped")
