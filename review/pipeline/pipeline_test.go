package pipeline_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/pipeline"
	"github.com/debatebot/debatebot/toulmin"
)

// source is a plain Source: it returns its subject or its error.
type source struct {
	subject *pipeline.Subject
	err     error
}

func (s *source) Read(context.Context) (*pipeline.Subject, error) { return s.subject, s.err }

// publisher records what the pipeline asked of it, in order.
type publisher struct {
	calls     []string
	published *pipeline.Result
	// liveCtx says whether the context was still live when Publish was called.
	liveCtx bool
	phases  int
	cannot  *review.InputError
}

func (p *publisher) Start(context.Context, *review.Debate) { p.calls = append(p.calls, "start") }

func (p *publisher) Progress(_ context.Context, e toulmin.Event) {
	if e.Kind == toulmin.EventPhaseStarted {
		p.phases++
	}
}

func (p *publisher) Publish(ctx context.Context, r *pipeline.Result) error {
	p.calls = append(p.calls, "publish")
	p.published, p.liveCtx = r, ctx.Err() == nil
	return nil
}

func (p *publisher) CannotDebate(_ context.Context, ie *review.InputError) error {
	p.calls = append(p.calls, "cannot-debate")
	p.cannot = ie
	return nil
}

// keeper records the checkpoints and the decision; kept is what Resume returns.
type keeper struct {
	calls       []string
	kept        *toulmin.Transcript
	checkpoints int
	finished    *toulmin.Transcript
}

func (k *keeper) Resume(context.Context, *review.Debate) (*toulmin.Transcript, error) {
	k.calls = append(k.calls, "resume")
	return k.kept, nil
}

func (k *keeper) Checkpoint(context.Context, *toulmin.Transcript) error {
	k.checkpoints++
	return nil
}

func (k *keeper) Finish(_ context.Context, _ *review.Debate, t *toulmin.Transcript) error {
	k.calls = append(k.calls, "finish")
	k.finished = t
	return nil
}

// question is an offline debate of a design question under the default configuration.
func question(t *testing.T) (*review.Debate, *source) {
	t.Helper()
	repo := config.Default()
	protocol, err := repo.DebateProtocol("fast-track")
	if err != nil {
		t.Fatal(err)
	}
	d := pipeline.NewDebate(repo, protocol, agents.OfflinePanel(repo.Stakeholders), "test")
	return d, &source{subject: &pipeline.Subject{Question: "Should the cache be shared between replicas?"}}
}

func TestRunDebatesKeepsAndPublishes(t *testing.T) {
	d, src := question(t)
	pub, keep := &publisher{}, &keeper{}
	rv := &pipeline.Review{Debate: d, Source: src, Publisher: pub, Keeper: keep}
	tr, err := rv.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(pub.calls, ","); got != "start,publish" {
		t.Errorf("publisher calls = %s, want start,publish", got)
	}
	if got := strings.Join(keep.calls, ","); got != "resume,finish" {
		t.Errorf("keeper calls = %s, want resume,finish", got)
	}
	if d.Question == "" || pub.published.Transcript != tr || keep.finished != tr || pub.published.Kept {
		t.Errorf("the question's transcript was not what was kept and published: %+v", pub.published)
	}
	if keep.checkpoints == 0 || pub.phases == 0 {
		t.Errorf("checkpoints = %d, phases shown = %d; want each phase kept and shown", keep.checkpoints, pub.phases)
	}
}

func TestRunPublishesAKeptDecisionWithoutDebating(t *testing.T) {
	d, src := question(t)
	kept := &toulmin.Transcript{DebateID: "kept"}
	pub, keep := &publisher{}, &keeper{kept: kept}
	tr, err := (&pipeline.Review{Debate: d, Source: src, Publisher: pub, Keeper: keep}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tr != kept || !pub.published.Kept || pub.phases != 0 || keep.finished != nil {
		t.Errorf("a kept decision was debated again or not published as kept: phases %d, result %+v", pub.phases, pub.published)
	}
}

func TestRunSaysWhyAChangeCannotBeDebated(t *testing.T) {
	d, _ := question(t)
	ie := &review.InputError{Source: "x.diff", Problem: "only binary files changed"}
	pub := &publisher{}
	tr, err := (&pipeline.Review{Debate: d, Source: &source{err: ie}, Publisher: pub}).Run(context.Background())
	if err != nil || tr != nil {
		t.Fatalf("Run = %v, %v; want nothing (the publisher said why)", tr, err)
	}
	if pub.cannot != ie || strings.Join(pub.calls, ",") != "cannot-debate" {
		t.Errorf("publisher calls = %v, told %v; want only why the change cannot be debated", pub.calls, pub.cannot)
	}
}

func TestRunReturnsTheSourcesError(t *testing.T) {
	d, _ := question(t)
	boom := errors.New("GitHub is down")
	pub := &publisher{}
	if _, err := (&pipeline.Review{Debate: d, Source: &source{err: boom}, Publisher: pub}).Run(context.Background()); !errors.Is(err, boom) {
		t.Errorf("Run = %v, want the source's error", err)
	}
	if len(pub.calls) != 0 {
		t.Errorf("publisher calls = %v, want none", pub.calls)
	}
}

func TestRunDoesNotPublishADebateStoppedByItsContext(t *testing.T) {
	d, src := question(t)
	superseded := errors.New("superseded by a newer push")
	ctx, stop := context.WithCancelCause(context.Background())
	stop(superseded)
	pub, keep := &publisher{}, &keeper{}
	_, err := (&pipeline.Review{Debate: d, Source: src, Publisher: pub, Keeper: keep}).Run(ctx)
	var stopped *pipeline.StoppedError
	if !errors.As(err, &stopped) || !errors.Is(stopped.Cause, superseded) {
		t.Fatalf("Run = %v, want a StoppedError with the context's cause", err)
	}
	if pub.published != nil || keep.finished != nil {
		t.Errorf("a stopped debate was kept or published")
	}
}

func TestRunPublishesADebateStoppedForHumanReview(t *testing.T) {
	d, src := question(t)
	ctx, stop := context.WithCancelCause(context.Background())
	stop(toulmin.ErrHumanReview)
	pub, keep := &publisher{}, &keeper{}
	if _, err := (&pipeline.Review{Debate: d, Source: src, Publisher: pub, Keeper: keep}).Run(ctx); err != nil {
		t.Fatal(err)
	}
	if pub.published == nil || !pub.liveCtx || keep.finished == nil {
		t.Errorf("a debate stopped for human review must be kept and published on a live context: published %v, live %v", pub.published != nil, pub.liveCtx)
	}
}

// The repository's llm.max_cost_usd is the debate's model budget.
func TestNewDebateCarriesTheModelBudget(t *testing.T) {
	repo, err := config.Parse([]byte("llm:\n  max_cost_usd: 0.3\n"), config.RepoPath)
	if err != nil {
		t.Fatal(err)
	}
	if d := pipeline.NewDebate(repo, toulmin.Standard(), nil, "cli"); d.Protocol.MaxCostUSD != 0.3 {
		t.Errorf("the debate's budget is %v, want 0.3", d.Protocol.MaxCostUSD)
	}
	if d := pipeline.NewDebate(config.Default(), toulmin.Standard(), nil, "cli"); d.Protocol.MaxCostUSD != 0 {
		t.Errorf("without max_cost_usd the debate's budget is %v, want none", d.Protocol.MaxCostUSD)
	}
}
