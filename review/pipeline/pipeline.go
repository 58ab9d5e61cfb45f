package pipeline

import (
	"context"
	"errors"
	"time"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/toulmin"
)

// Subject is what a review debates: a change, or a design question without one.
type Subject struct {
	Change   *change.Change
	Question string
	// Since is the earlier head the change is compared with when it is what a push changed
	// since an earlier debate ("": the whole change); Carry then applies what that debate
	// required to the new transcript.
	Since string
	Carry func(*toulmin.Transcript)
}

// Source reads the subject of a review: a pull request (the App, the Action), a diff, a git
// range or a question (the CLI). A *review.InputError says why the change cannot be debated.
type Source interface {
	Read(ctx context.Context) (*Subject, error)
}

// Result is a decided debate to publish.
type Result struct {
	Transcript *toulmin.Transcript
	Subject    *Subject
	// Kept says the debate was decided before this run and comes from the Keeper (a retry whose
	// publication failed, a resumed debate that was decided): it is published again, not
	// debated twice.
	Kept bool
}

// Publisher shows a review where its readers are: the pull request (the App, the Action) or
// the terminal (the CLI).
type Publisher interface {
	// Start shows that the debate starts (the check run), before it is held.
	Start(ctx context.Context, d *review.Debate)
	// Progress hears the debate's events while it is held.
	Progress(ctx context.Context, e toulmin.Event)
	// Publish renders and publishes the decided debate.
	Publish(ctx context.Context, r *Result) error
	// CannotDebate says why the change cannot be debated (binary-only, empty, every file
	// ignored); its error is the review's.
	CannotDebate(ctx context.Context, ie *review.InputError) error
}

// Keeper keeps a debate beyond its process, so that one cut short resumes and one decided is
// not held twice: the App's store, the CLI's local store.
type Keeper interface {
	// Resume prepares d to go on from its last checkpoint (d.Prior); it returns the kept
	// transcript when the debate was decided already. d.Checkpoint is the Keeper's Checkpoint,
	// which Resume may wrap.
	Resume(ctx context.Context, d *review.Debate) (*toulmin.Transcript, error)
	// Checkpoint keeps a completed phase.
	Checkpoint(ctx context.Context, t *toulmin.Transcript) error
	// Finish keeps the decided debate before it is published; its error stops the review.
	Finish(ctx context.Context, d *review.Debate, t *toulmin.Transcript) error
}

// Review is one review: the debate configured for its repository (protocol, agents, panel,
// weights), the source of its subject, its publisher and its keeper (nil: not kept).
type Review struct {
	Debate    *review.Debate
	Source    Source
	Publisher Publisher
	Keeper    Keeper
}

// StoppedError is the debate's error when its context ended while it was held; Cause is why
// (the context's cause: an interrupt, a newer push, a shutdown).
type StoppedError struct{ Err, Cause error }

func (e *StoppedError) Error() string { return e.Err.Error() }

func (e *StoppedError) Unwrap() error { return e.Err }

// Run reads the subject, debates it (the debate gathers the evidence), keeps it and publishes
// it. It returns the published transcript. A debate whose context ended while it was held
// returns a *StoppedError, published nowhere; a debate stopped for a human's review
// (toulmin.ErrHumanReview) is still kept and published, on a context of its own.
func (r *Review) Run(ctx context.Context) (*toulmin.Transcript, error) {
	subject, err := r.read(ctx)
	if err != nil || subject == nil {
		return nil, err
	}
	d := r.Debate
	r.Publisher.Start(ctx, d)
	if r.Keeper != nil {
		d.Checkpoint = r.Keeper.Checkpoint
		kept, err := r.Keeper.Resume(ctx, d)
		if err != nil {
			return nil, err
		}
		if kept != nil {
			return kept, r.Publisher.Publish(ctx, &Result{Transcript: kept, Subject: subject, Kept: true})
		}
	}
	t, err := r.debate(ctx)
	if err != nil || t == nil {
		return nil, err
	}
	if errors.Is(context.Cause(ctx), toulmin.ErrHumanReview) {
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		ctx = pctx
	}
	if r.Keeper != nil {
		if err := r.Keeper.Finish(ctx, d, t); err != nil {
			return nil, err
		}
	}
	return t, r.Publisher.Publish(ctx, &Result{Transcript: t, Subject: subject})
}

// read reads the subject and gives it to the debate; a change that cannot be debated is said
// by the publisher, and a nil subject returned.
func (r *Review) read(ctx context.Context) (*Subject, error) {
	s, err := r.Source.Read(ctx)
	var ie *review.InputError
	if errors.As(err, &ie) {
		return nil, r.Publisher.CannotDebate(ctx, ie)
	}
	if err != nil {
		return nil, err
	}
	r.Debate.Change, r.Debate.Question = s.Change, s.Question
	if s.Carry != nil {
		r.Debate.Carry = s.Carry
	}
	return s, nil
}

// debate holds the debate with the publisher showing its progress; a change found not to be
// debatable while it runs is said by the publisher (a nil transcript returned).
func (r *Review) debate(ctx context.Context) (*toulmin.Transcript, error) {
	r.Debate.Observer = func(e toulmin.Event) { r.Publisher.Progress(ctx, e) }
	t, err := r.Debate.Run(ctx)
	var ie *review.InputError
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, &StoppedError{Err: err, Cause: context.Cause(ctx)}
	case errors.As(err, &ie):
		return nil, r.Publisher.CannotDebate(ctx, ie)
	}
	return t, err
}
