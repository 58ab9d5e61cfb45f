package toulmin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// CheckpointAction is a human's answer at a checkpoint between rounds (seed 002).
type CheckpointAction string

// Answers at a checkpoint.
const (
	// CheckpointContinue runs the next round as the moderator judged it should.
	CheckpointContinue CheckpointAction = "continue"
	// CheckpointGuide runs the next round with the human's guidance in every agent's request.
	CheckpointGuide CheckpointAction = "guide"
	// CheckpointEnd ends the rounds: the debate goes on to its synthesis and decision.
	CheckpointEnd CheckpointAction = "end"
)

// Valid reports whether a is a known answer.
func (a CheckpointAction) Valid() bool {
	switch a {
	case CheckpointContinue, CheckpointGuide, CheckpointEnd:
		return true
	}
	return false
}

// CheckpointAnswer is what the human said at a checkpoint.
type CheckpointAnswer struct {
	Action CheckpointAction
	// Guidance is the text of a guide answer. It is untrusted: whoever answers may write
	// anything, so model-backed agents get it fenced like the pull request's text.
	Guidance string
	// By names who answered (a GitHub login, "terminal"), for the transcript.
	By string
}

// Pause is what the checkpoint hook is told: the round that ended, the moderator's judgement of
// it, and the debate so far (read only).
type Pause struct {
	DebateID   string
	Round      int
	Judgement  Judgement
	Transcript *Transcript
}

// RoundCheckpoint asks a human what to do after a round that another round would follow. Its
// context ends at the protocol's checkpoint timeout: a hook that returns then (with the
// context's error) ends the rounds, as seed 002's timeout does.
type RoundCheckpoint func(ctx context.Context, p Pause) (CheckpointAnswer, error)

// WithRoundCheckpoint sets the hook the engine asks between rounds when the protocol has
// checkpoints; without one the debate does not pause.
func WithRoundCheckpoint(f RoundCheckpoint) Option {
	return func(e *Engine) { e.pause = f }
}

// Checkpoint is a checkpoint's record in the transcript.
type Checkpoint struct {
	// AfterRound is the round of confrontation the checkpoint followed.
	AfterRound int              `json:"after_round" yaml:"after_round"`
	Action     CheckpointAction `json:"action" yaml:"action"`
	// Guidance is the untrusted text of a guide answer, carried in the next round's requests.
	Guidance string `json:"guidance,omitempty" yaml:"guidance,omitempty"`
	By       string `json:"by,omitempty" yaml:"by,omitempty"`
	// Waited is how long the debate was paused.
	Waited time.Duration `json:"waited" yaml:"waited"`
	// Note says what else happened (the wait timed out).
	Note string `json:"note,omitempty" yaml:"note,omitempty"`
}

// MaxGuidance bounds the guidance kept from one checkpoint, in bytes: it goes into every
// agent's prompt of the next round.
const MaxGuidance = 2000

// checkpointAt returns the transcript's checkpoint after the round, if it had one (a resumed
// debate does not ask again what was answered).
func (t *Transcript) checkpointAt(round int) (Checkpoint, bool) {
	for _, c := range t.Checkpoints {
		if c.AfterRound == round {
			return c, true
		}
	}
	return Checkpoint{}, false
}

// GuidanceFor returns the guidance given at the checkpoint before the round, "" when none.
func (t *Transcript) GuidanceFor(round int) string {
	if c, ok := t.checkpointAt(round - 1); ok && c.Action == CheckpointGuide {
		return c.Guidance
	}
	return ""
}

// pauseAfter asks the hook what to do after the round. outer is the caller's context (the
// debate's own total time is not the human's). It reports whether the rounds end, and returns
// an error only when the debate was interrupted from outside while waiting or the hook failed.
func (r *run) pauseAfter(outer context.Context, round int, j Judgement) (bool, error) {
	if c, ok := r.t.checkpointAt(round); ok {
		return c.Action == CheckpointEnd, nil
	}
	hctx, cancel := context.WithTimeout(outer, r.e.protocol.CheckpointWait())
	defer cancel()
	start := time.Now()
	ans, err := r.e.pause(hctx, Pause{DebateID: r.subject.DebateID, Round: round, Judgement: j, Transcript: r.t})
	c := Checkpoint{AfterRound: round, Waited: time.Since(start).Round(time.Millisecond)}
	switch {
	case outer.Err() != nil:
		return false, fmt.Errorf("%w at the checkpoint after round %d of debate %s: %w", ErrInterrupted, round, r.subject.DebateID, context.Cause(outer))
	case err != nil && errors.Is(err, context.DeadlineExceeded) && hctx.Err() != nil:
		c.Action = CheckpointEnd
		c.Note = fmt.Sprintf("no answer within the checkpoint timeout (%s): the rounds end", r.e.protocol.CheckpointWait())
	case err != nil:
		return false, fmt.Errorf("failed to ask at the checkpoint after round %d of debate %s: %w", round, r.subject.DebateID, err)
	case !ans.Action.Valid():
		return false, fmt.Errorf("the checkpoint after round %d of debate %s got unknown answer %q (want continue, guide or end)", round, r.subject.DebateID, ans.Action)
	default:
		c.Action, c.By = ans.Action, ans.By
		if ans.Action == CheckpointGuide {
			c.SetGuidance(ans.Guidance)
		}
	}
	r.t.RecordCheckpoint(c)
	if r.e.checkpoint != nil {
		if err := r.e.checkpoint(outer, r.t); err != nil {
			return false, fmt.Errorf("failed to checkpoint debate %s after the pause of round %d: %w", r.subject.DebateID, round, err)
		}
	}
	return c.Action == CheckpointEnd, nil
}

// SetGuidance records a human's guidance as the checkpoint's answer: trimmed, cut to MaxGuidance
// bytes (with a note saying so); empty guidance turns the answer into continue.
func (c *Checkpoint) SetGuidance(text string) {
	c.Guidance = strings.TrimSpace(text)
	if len(c.Guidance) > MaxGuidance {
		c.Guidance = truncateUTF8(c.Guidance, MaxGuidance)
		c.Note = fmt.Sprintf("the guidance was cut to %d bytes", MaxGuidance)
	}
	if c.Guidance == "" {
		c.Action, c.Note = CheckpointContinue, "guidance was empty: the debate continues without it"
	}
}

// RecordCheckpoint adds an answered checkpoint to the transcript; an end sets the exit reason,
// whether the engine was answered at once or the debate is resumed after a pause.
func (t *Transcript) RecordCheckpoint(c Checkpoint) {
	t.Checkpoints = append(t.Checkpoints, c)
	if c.Action == CheckpointEnd {
		t.ExitReason = fmt.Sprintf("ended at the checkpoint after round %d", c.AfterRound)
		if c.By != "" {
			t.ExitReason += " by " + c.By
		}
		if c.Note != "" {
			t.ExitReason += "; " + c.Note
		}
	}
}

// truncateUTF8 keeps at most n bytes of s without splitting a character.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
