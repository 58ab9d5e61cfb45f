package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
)

// extendedTwoRounds is a repository configuration whose debates pause after their first round.
const extendedTwoRounds = "protocol: extended\nmax_rounds: 2\n"

// pausedApp is the App with acme/shop#7's debate paused at its first checkpoint; its runner's
// clock runs skew ahead of the real time.
func pausedApp(t *testing.T) (*app, *store.Paused) {
	t.Helper()
	a := newAppClocked(t, nil, func(o *QueueOptions) { o.SweepEvery = 20 * time.Millisecond }, true)
	a.gh.Contents["acme/shop@main:.github/debatebot.yml"] = extendedTwoRounds
	a.post("pull_request", "d-open", fixture(t, "pull_request.opened.json", nil), secret)
	a.srv.Queue.Wait()
	p, err := a.srv.Store.PausedDebate(context.Background(), "acme/shop", 7)
	if err != nil {
		t.Fatalf("no paused debate after the first round: %v", err)
	}
	return a, p
}

// A debate whose protocol has checkpoints pauses after its first round: the job ends without
// error, nothing is decided, and the progress comment says how to resume it.
func TestDebatePausesAtCheckpoint(t *testing.T) {
	a, p := pausedApp(t)
	if p.AfterRound != 1 {
		t.Errorf("paused after round %d, want 1", p.AfterRound)
	}
	if counts, _ := a.srv.Store.Counts(context.Background()); counts[store.Failed] != 0 || counts[store.Done] != 1 {
		t.Errorf("jobs %v, want the one job done", counts)
	}
	if dec := a.comments(render.DecisionMarker); len(dec) != 0 {
		t.Errorf("a paused debate published a decision: %+v", dec)
	}
	tr := a.comments(render.TranscriptMarker)
	if len(tr) != 1 || !strings.Contains(tr[0].Body, "paused after round 1") ||
		!strings.Contains(tr[0].Body, "`/debate continue`") || !strings.Contains(tr[0].Body, "`/debate guide TEXT`") || !strings.Contains(tr[0].Body, "`/debate end`") {
		t.Fatalf("transcript comment = %+v, want it to say the debate is paused and how to resume it", tr)
	}
	// The check run stays in progress and says why.
	if cr := a.gh.Checks("acme/shop"); len(cr) != 1 || cr[0].Status != "in_progress" || cr[0].Title != "Paused after round 1: waiting for a human" ||
		!strings.Contains(cr[0].Summary, "`/debate continue`") {
		t.Errorf("check runs = %+v, want the one in progress saying the debate is paused", cr)
	}
	a.checkCalls()
}

// Answers at the checkpoint: a read-only user is refused and the debate stays paused; a writer's
// guidance is recorded and the debate resumes with it, runs its second round and is decided; a
// command after that finds nothing paused.
func TestGuideResumesPausedDebate(t *testing.T) {
	a, p := pausedApp(t)
	ctx := context.Background()
	a.post("issue_comment", "d-mallory", commentFixture(t, "mallory", "/debate continue"), secret)
	a.srv.Queue.Wait()
	if a.commentsContaining("@mallory: `/debate continue` needs write permission") != 1 {
		t.Fatalf("no refusal for a read-only user: %+v", a.gh.CommentsOn("acme/shop#7"))
	}
	if still, err := a.srv.Store.PausedDebate(ctx, "acme/shop", 7); err != nil || still.ID != p.ID {
		t.Fatalf("a refused answer unpaused the debate: %+v (%v)", still, err)
	}
	a.post("issue_comment", "d-alice", commentFixture(t, "alice", "/debate guide look at the\nrollback path"), secret)
	a.srv.Queue.Wait()
	if a.commentsContaining("@alice answered the checkpoint after round 1: **guide**") != 1 {
		t.Errorf("no confirmation of the answer: %+v", a.gh.CommentsOn("acme/shop#7"))
	}
	if _, err := a.srv.Store.PausedDebate(ctx, "acme/shop", 7); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("still paused after the answer: %v", err)
	}
	d, err := a.srv.Store.LatestDecided(ctx, "acme/shop", 7)
	if err != nil || d.ID != p.ID {
		t.Fatalf("the resumed debate was not decided: %+v (%v)", d, err)
	}
	full, err := a.srv.Store.Debate(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	var tr toulmin.Transcript
	if err := json.Unmarshal(full.Checkpoint, &tr); err != nil {
		t.Fatal(err)
	}
	if len(tr.Checkpoints) != 1 || tr.Checkpoints[0].Action != toulmin.CheckpointGuide || tr.Checkpoints[0].By != "alice" || tr.Checkpoints[0].Guidance != "look at the\nrollback path" || tr.Rounds != 2 {
		t.Fatalf("checkpoints %+v after %d rounds, want alice's guidance after round 1 and two rounds", tr.Checkpoints, tr.Rounds)
	}
	guided := false
	for _, ph := range tr.Timeline {
		for _, n := range ph.Notes {
			if strings.Contains(n, "cannot weigh the checkpoint's guidance: look at the rollback path") {
				guided = guided || ph.Round == 2
			}
		}
	}
	if !guided {
		t.Error("the second round did not carry the guidance")
	}
	if dec := a.comments(render.DecisionMarker); len(dec) != 1 {
		t.Errorf("decision comments = %d, want 1", len(dec))
	}
	if tc := a.comments(render.TranscriptMarker); len(tc) != 1 || !strings.Contains(tc[0].Body, "Checkpoint after round 1: **guide** by alice") {
		t.Errorf("the published transcript does not show the checkpoint: %+v", tc)
	}
	a.post("issue_comment", "d-late", commentFixture(t, "alice", "/debate end"), secret)
	a.srv.Queue.Wait()
	if a.commentsContaining("@alice: no debate on this pull request is paused at a checkpoint") != 1 {
		t.Errorf("no reply to a command with nothing paused: %+v", a.gh.CommentsOn("acme/shop#7"))
	}
	if counts, _ := a.srv.Store.Counts(ctx); counts[store.Failed] != 0 {
		t.Errorf("jobs %v, want none failed", counts)
	}
	a.checkCalls()
}

// /debate end ends the rounds at the checkpoint: the debate resumes straight into its synthesis
// and decision, with one round.
func TestEndFinishesPausedDebate(t *testing.T) {
	a, _ := pausedApp(t)
	a.post("issue_comment", "d-end", commentFixture(t, "alice", "/debate end"), secret)
	a.srv.Queue.Wait()
	d, err := a.srv.Store.LatestDecided(context.Background(), "acme/shop", 7)
	if err != nil {
		t.Fatalf("not decided after /debate end: %v", err)
	}
	full, _ := a.srv.Store.Debate(context.Background(), d.ID)
	var tr toulmin.Transcript
	if err := json.Unmarshal(full.Checkpoint, &tr); err != nil {
		t.Fatal(err)
	}
	if tr.Rounds != 1 || len(tr.Checkpoints) != 1 || tr.Checkpoints[0].Action != toulmin.CheckpointEnd || !strings.Contains(tr.ExitReason, "ended at the checkpoint after round 1 by alice") {
		t.Errorf("rounds %d checkpoints %+v exit %q, want one round ended by alice", tr.Rounds, tr.Checkpoints, tr.ExitReason)
	}
}

// A paused debate nobody answers is ended by the queue's sweep once its checkpoint_timeout (the
// default, 30 minutes) is over, by the runner's clock: the rounds end with a note and the debate
// is decided.
func TestSweepEndsPausedDebateAfterTimeout(t *testing.T) {
	a, p := pausedApp(t)
	ctx := context.Background()
	if p.Until.Sub(p.At) != 30*time.Minute {
		t.Fatalf("the wait is %s, want the default checkpoint_timeout 30m", p.Until.Sub(p.At))
	}
	a.skew.Store(int64(29 * time.Minute))
	time.Sleep(100 * time.Millisecond) // several sweeps
	a.srv.Queue.Wait()
	if _, err := a.srv.Store.PausedDebate(ctx, "acme/shop", 7); err != nil {
		t.Fatalf("the sweep ended a debate before its timeout: %v", err)
	}
	a.skew.Store(int64(31 * time.Minute))
	waitFor(t, "the sweep to end the paused debate", func() bool {
		_, err := a.srv.Store.LatestDecided(ctx, "acme/shop", 7)
		return err == nil
	})
	a.srv.Queue.Wait()
	full, err := a.srv.Store.Debate(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	var tr toulmin.Transcript
	if err := json.Unmarshal(full.Checkpoint, &tr); err != nil {
		t.Fatal(err)
	}
	if tr.Rounds != 1 || len(tr.Checkpoints) != 1 || tr.Checkpoints[0].Action != toulmin.CheckpointEnd || tr.Checkpoints[0].By != "" ||
		!strings.Contains(tr.Checkpoints[0].Note, "no answer within the checkpoint timeout (30m0s)") || tr.Checkpoints[0].Waited < 31*time.Minute {
		t.Errorf("rounds %d checkpoints %+v, want the rounds ended by the timeout after round 1", tr.Rounds, tr.Checkpoints)
	}
	if dec := a.comments(render.DecisionMarker); len(dec) != 1 {
		t.Errorf("decision comments = %d, want 1", len(dec))
	}
}

// A debate paused on a head the pull request left is not resumed by the sweep: it would
// supersede the newer head's debate. The newer head's own paused debate is ended and decided.
func TestSweepLeavesStalePausedDebate(t *testing.T) {
	a, old := pausedApp(t)
	ctx := context.Background()
	a.gh.PRs["acme/shop#7"].HeadSHA = "def456"
	a.post("pull_request", "d-push", fixture(t, "pull_request.synchronize.json", func(p map[string]any) {
		p["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = "def456"
	}), secret)
	a.srv.Queue.Wait()
	cur, err := a.srv.Store.PausedDebate(ctx, "acme/shop", 7)
	if err != nil || cur.ID == old.ID {
		t.Fatalf("the newer head's debate did not pause: %+v (%v)", cur, err)
	}
	a.skew.Store(int64(31 * time.Minute))
	waitFor(t, "the sweep to end the newer head's debate", func() bool {
		d, err := a.srv.Store.LatestDecided(ctx, "acme/shop", 7)
		return err == nil && d.ID == cur.ID
	})
	a.srv.Queue.Wait()
	if d, err := a.srv.Store.Debate(ctx, old.ID); err != nil || d.Decision != "" {
		t.Errorf("the stale debate = %+v (%v), want it left undecided", d, err)
	}
	if _, err := a.srv.Store.PausedDebate(ctx, "acme/shop", 7); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a debate is still paused after the sweep: %v", err)
	}
	if counts, _ := a.srv.Store.Counts(ctx); counts[store.Superseded] != 0 || counts[store.Failed] != 0 {
		t.Errorf("jobs %v, want none superseded or failed", counts)
	}
}

// /human-review on a debate paused at a checkpoint stops it as it stops a running one: no
// further round, no decision of its own; what was said is published and a human decides.
func TestHumanReviewStopsPausedDebate(t *testing.T) {
	a, p := pausedApp(t)
	ctx := context.Background()
	a.post("issue_comment", "d-hr", commentFixture(t, "alice", "/human-review"), secret)
	a.srv.Queue.Wait()
	if _, err := a.srv.Store.PausedDebate(ctx, "acme/shop", 7); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("still paused after /human-review: %v", err)
	}
	d, err := a.srv.Store.PendingHumanDecision(ctx, "acme/shop", 7)
	if err != nil {
		t.Fatalf("no debate waits for a human after /human-review on the paused one: %v\n%+v", err, a.gh.CommentsOn("acme/shop#7"))
	}
	if d.ID != p.ID || d.Decision != "escalate" || !strings.Contains(d.Escalations, "human_review") {
		t.Errorf("debate %s decided %s (%s), want %s escalated for human review", d.ID, d.Decision, d.Escalations, p.ID)
	}
	full, err := a.srv.Store.Debate(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	var tr toulmin.Transcript
	if err := json.Unmarshal(full.Checkpoint, &tr); err != nil {
		t.Fatal(err)
	}
	for _, ph := range tr.Timeline {
		if ph.Phase == toulmin.PhaseRebuttal && ph.Round == 2 {
			t.Errorf("a second round ran after /human-review: %+v", ph)
		}
	}
	if a.commentsContaining("asked for human review: the debate stops") != 1 {
		t.Errorf("no single confirmation of /human-review: %+v", a.gh.CommentsOn("acme/shop#7"))
	}
	if len(a.comments(render.DecisionMarker)) != 1 {
		t.Errorf("what was said was not published for the human: %+v", a.gh.CommentsOn("acme/shop#7"))
	}
}
