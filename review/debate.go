package review

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/codectx"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// Debate is one debate to hold: the change or question, and how to debate it.
type Debate struct {
	Change *change.Change
	// Question is set for a design debate with no code.
	Question string
	// Repository, PRNumber and Trigger identify the debate on GitHub (empty for local ones).
	Repository string
	PRNumber   int
	Trigger    string

	Protocol toulmin.Protocol
	Agents   []toulmin.Agent
	// Panel says who seats the stakeholders: every agent given (the default), the moderator
	// choosing 2 to 4 of them (seed 002), or debatebot.yml's list, which wins over the moderator.
	Panel agents.PanelChoice
	// Moderator, when set, replaces the moderator NewModerator would make for a moderated panel.
	Moderator  toulmin.Moderator
	Analyzers  []scan.Analyzer
	Weights    voting.Weights
	Thresholds voting.Thresholds
	// Ignore lists globs of paths dropped before anything else.
	Ignore []string
	// Dismissed, when set, reports whether a finding's fingerprint was dismissed by a maintainer
	// of the repository: such findings are dropped as soon as the evidence is gathered, before
	// any agent sees them, and a note says how many.
	Dismissed func(fingerprint string) bool
	// Concurrency bounds the agents speaking at once (0: all of a phase).
	Concurrency int
	Clock       func() time.Time
	// Observer receives phase events (progress on a terminal, a PR comment being edited).
	Observer func(toulmin.Event)
	// Carry, when set, amends the finished transcript with what an earlier debate of the same
	// pull request left open (incremental debates of new pushes).
	Carry func(*toulmin.Transcript)
	// Checkpoint, when set, keeps the transcript after every completed phase; Prior is the last
	// one kept, to resume from after a crash.
	Checkpoint func(context.Context, *toulmin.Transcript) error
	Prior      *toulmin.Transcript
	// Pause, when set and the protocol has checkpoints, asks a human between rounds whether to
	// continue, guide or end the debate (seed 002).
	Pause toulmin.RoundCheckpoint
	// RunID, when set, is the debate's id instead of DebateID's: a local run gets one of its
	// own, so that debating the same change again keeps both debates.
	RunID string
}

// Run is the one path every debate takes, from the command line or the App: drop ignored paths,
// gather evidence, run the engine over the agents, and return the transcript with its record.
func (d *Debate) Run(ctx context.Context) (*toulmin.Transcript, error) {
	c, err := d.change()
	if err != nil {
		return nil, err
	}
	panel := d.Agents
	if panel == nil {
		panel = agents.OfflinePanel(agents.DefaultPerspectives())
	}
	engine, err := toulmin.NewEngine(d.Protocol, panel, d.options(panel)...)
	if err != nil {
		return nil, fmt.Errorf("failed to set up the debate: %w", err)
	}
	subject := d.subject(c)
	if d.Prior != nil {
		// A resumed debate does not gather again: the whole-tree findings it already has keep
		// their lines in scope, and the files beside the change are read again for the code
		// the model is shown and the citations into it.
		scopeEvidence(c, d.Prior.Evidence)
		codectx.ReadBeside(ctx, c)
	}
	t, err := engine.Resume(ctx, subject, d.Prior)
	if err != nil {
		return nil, err
	}
	if d.Carry != nil {
		d.Carry(t)
	}
	if d.Question == "" {
		t.Files = changedFiles(c)
	}
	return t, nil
}

// change is what the debate is about: the change without its ignored paths, or a question as a
// change with no files.
func (d *Debate) change() (*change.Change, error) {
	c := d.Change
	if c == nil {
		if strings.TrimSpace(d.Question) == "" {
			return nil, fmt.Errorf("a debate needs a change or a question")
		}
		c = &change.Change{Source: "question", Title: scan.Clip(strings.TrimSpace(d.Question), 120), Body: d.Question}
	}
	if err := DropIgnored(c, d.Ignore); err != nil {
		return nil, err
	}
	if len(c.Files) == 0 && d.Change != nil && d.Question == "" {
		return nil, &InputError{c.Source, "every file of the change matches an ignored path; nothing is left to debate"}
	}
	return c, nil
}

// options are the engine's options the debate sets: weights and thresholds (the defaults when
// unset), clock, observer, concurrency, checkpoints, and who seats the panel.
func (d *Debate) options(panel []toulmin.Agent) []toulmin.Option {
	weights, thresholds := d.Weights, d.Thresholds
	if weights == (voting.Weights{}) {
		weights = voting.DefaultWeights()
	}
	if thresholds == (voting.Thresholds{}) {
		thresholds = voting.DefaultThresholds()
	}
	opts := []toulmin.Option{toulmin.WithWeights(weights), toulmin.WithThresholds(thresholds)}
	if d.Clock != nil {
		opts = append(opts, toulmin.WithClock(d.Clock))
	}
	if d.Observer != nil {
		opts = append(opts, toulmin.WithObserver(d.Observer))
	}
	if d.Concurrency > 0 {
		opts = append(opts, toulmin.WithConcurrency(d.Concurrency))
	}
	if d.Checkpoint != nil {
		opts = append(opts, toulmin.WithCheckpoint(d.Checkpoint))
	}
	if d.Pause != nil {
		opts = append(opts, toulmin.WithRoundCheckpoint(d.Pause))
	}
	switch {
	case d.Panel == agents.PanelModerated && d.Moderator != nil:
		opts = append(opts, toulmin.WithModerator(d.Moderator))
	case d.Panel == agents.PanelModerated:
		opts = append(opts, toulmin.WithModerator(agents.NewModerator(panel)))
	case d.Panel == agents.PanelConfigured:
		opts = append(opts, toulmin.WithModerator(agents.ConfiguredPanel{}))
	}
	return opts
}

// subject is the debate's subject: the change, its identity, and how its evidence is gathered
// (by the debate's analyzers, the defaults when unset, with their notes).
func (d *Debate) subject(c *change.Change) *toulmin.Subject {
	analyzers := d.Analyzers
	if analyzers == nil {
		analyzers = evidence.DefaultAnalyzers()
	}
	title := c.Title
	if title == "" {
		title = c.Source
	}
	subject := &toulmin.Subject{
		DebateID:   d.ID(),
		Repository: d.Repository, PRNumber: d.PRNumber, HeadSHA: c.HeadSHA, Trigger: d.trigger(),
		Title: title, Question: d.Question, Index: codectx.NewHeadIndex(c), Data: c,
	}
	// The head-tree files beside the changed ones are read while the trees exist, for the code
	// the model is shown around the change and the citations into it.
	analyzers = append(slices.Clip(analyzers), codectx.Reader{})
	var notes []string
	subject.Gather = func(ctx context.Context) ([]toulmin.Evidence, error) {
		found, n, err := scan.GatherWithNotes(ctx, c, analyzers)
		found, dropped := scan.DropDismissed(found, d.Dismissed)
		if dropped > 0 {
			n = append(n, fmt.Sprintf("%d finding(s) a maintainer dismissed as false positives on this code were left out", dropped))
		}
		ev := Evidence(found)
		notes = n
		return ev, err
	}
	subject.GatherNotes = func() []string { return notes }
	return subject
}

// ID is the debate's id: its RunID when set, else its stable id (see DebateID).
func (d *Debate) ID() string {
	if d.RunID != "" {
		return d.RunID
	}
	return d.StableID()
}

// StableID is the same for the same change (or question) under the same protocol and trigger
// (see DebateID), whatever the RunID.
func (d *Debate) StableID() string {
	c := d.Change
	if c == nil {
		c = &change.Change{}
	}
	return DebateID(c, d.Question, d.Repository, d.PRNumber, d.trigger(), d.Protocol.Name)
}

// trigger is what started the debate; a local debate is "cli".
func (d *Debate) trigger() string {
	if d.Trigger == "" {
		return "cli"
	}
	return d.Trigger
}

// DropIgnored removes files whose path matches any of the globs, noting what was dropped.
func DropIgnored(c *change.Change, globs []string) error {
	if len(globs) == 0 {
		return nil
	}
	for _, g := range globs {
		if !doublestar.ValidatePattern(g) {
			return fmt.Errorf("invalid ignore pattern %q", g)
		}
	}
	kept := c.Files[:0]
	dropped := 0
	for _, f := range c.Files {
		ignored := false
		for _, g := range globs {
			if ok, _ := doublestar.Match(g, f.Path); ok {
				ignored = true
				break
			}
		}
		if ignored {
			dropped++
			continue
		}
		kept = append(kept, f)
	}
	c.Files = kept
	if dropped > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d file(s) matching ignored paths left out", dropped))
	}
	return nil
}

// DebateID is stable for the same debate: the same change (or question) under the same protocol
// and trigger gets the same id, so that a repeated run is recognisable.
func DebateID(c *change.Change, question, repo string, pr int, trigger, protocol string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%s\x00%s\x00%s\x00%s\x00", repo, pr, c.HeadSHA, trigger, protocol, question)
	if c.HeadSHA == "" {
		writeChange(h, c)
	}
	return "deb-" + hex.EncodeToString(h.Sum(nil))[:12]
}

func writeChange(w io.Writer, c *change.Change) {
	for _, f := range c.Files {
		fmt.Fprintf(w, "%s\x00%s\x00", f.Path, f.Status)
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				fmt.Fprintf(w, "%c%d:%s\n", l.Kind, l.New, l.Text)
			}
		}
	}
}

// scopeEvidence brings the lines of an earlier debate's whole-tree findings into the change's
// scope, so that its arguments citing them stay within the change.
func scopeEvidence(c *change.Change, ev []toulmin.Evidence) {
	for _, e := range ev {
		if evidence.IsWholeTree(e.Analyzer) && e.Path != "" {
			c.Reach(e.Path, e.Line)
		}
	}
}

// changedFiles lists the change's files for the transcript.
func changedFiles(c *change.Change) []toulmin.ChangedFile {
	out := make([]toulmin.ChangedFile, 0, len(c.Files))
	for _, f := range c.Files {
		out = append(out, toulmin.ChangedFile{Path: f.Path, Status: string(f.Status), Added: f.Added, Deleted: f.Deleted})
	}
	return out
}
