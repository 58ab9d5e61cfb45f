package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// PostgresEnv names the PostgreSQL server the suite also runs against.
const PostgresEnv = "DEBATEBOT_TEST_POSTGRES"

var schemaSeq atomic.Int64

// backends opens a fresh store on each backend: SQLite always; PostgreSQL when PostgresEnv is
// set (each test in a schema of its own).
func backends(t testing.TB) map[string]func(testing.TB) *Store {
	out := map[string]func(testing.TB) *Store{
		"sqlite": func(t testing.TB) *Store {
			s, err := Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "debatebot.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
	url := os.Getenv(PostgresEnv)
	out["postgres"] = func(t testing.TB) *Store {
		if url == "" {
			t.Skipf("PostgreSQL tests need a server: set %s=postgres://user:pass@127.0.0.1:5432/db?sslmode=disable (.ci/run does)", PostgresEnv)
		}
		schema := fmt.Sprintf("t%d_%d", time.Now().UnixNano()%1e9, schemaSeq.Add(1))
		admin, err := sql.Open("pgx", url)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
			t.Fatalf("create schema: %v", err)
		}
		sep := "?"
		if strings.Contains(url, "?") {
			sep = "&"
		}
		s, err := Open(context.Background(), url+sep+"search_path="+schema)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			s.Close()
			_, _ = admin.Exec("DROP SCHEMA " + schema + " CASCADE")
			admin.Close()
		})
		return s
	}
	return out
}

func forEach(t *testing.T, f func(t *testing.T, open func(testing.TB) *Store)) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) { f(t, open) })
	}
}

func job(key, pr, head string) *Job {
	return &Job{Key: key, PR: pr, HeadSHA: head, Kind: "review", Payload: []byte(`{"k":"` + key + `"}`)}
}

func TestMigrations(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s := open(t)
		// The newest migration embedded for the backend.
		entries, err := fs.ReadDir(migrations, "migrations/"+s.dialect)
		if err != nil || len(entries) == 0 {
			t.Fatalf("no migrations: %v", err)
		}
		want, _ := strconv.Atoi(strings.SplitN(entries[len(entries)-1].Name(), "_", 2)[0])
		v, err := s.Version(context.Background())
		if err != nil || v != want || want < 6 {
			t.Errorf("version = %d (%v), want %d (at least 6)", v, err, want)
		}
		// Migrating again changes nothing.
		if err := s.migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

func TestEnqueueDedupesAndSupersedes(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		e, err := s.Enqueue(ctx, "d1", "pull_request", job("pr7@a/opened", "acme/shop#7", "a"))
		if err != nil || !e.Accepted {
			t.Fatalf("first: %+v %v", e, err)
		}
		if e, _ := s.Enqueue(ctx, "d1", "pull_request", job("pr7@a/opened", "acme/shop#7", "a")); e.Accepted || e.Reason != "duplicate delivery" {
			t.Errorf("same delivery: %+v", e)
		}
		if e, _ := s.Enqueue(ctx, "d2", "pull_request", job("pr7@a/opened", "acme/shop#7", "a")); e.Accepted || e.Reason != "duplicate job" {
			t.Errorf("same job key: %+v", e)
		}
		e3, err := s.Enqueue(ctx, "d3", "pull_request", job("pr7@b/synchronize", "acme/shop#7", "b"))
		if err != nil || !e3.Accepted || e3.Superseded != 1 {
			t.Errorf("newer head: %+v %v, want the older queued job superseded", e3, err)
		}
		old, _ := s.Job(ctx, e.JobID)
		if old.State != Superseded {
			t.Errorf("older job state = %s", old.State)
		}
		// A delivery without a job (an event that starts nothing) is remembered too.
		if e, _ := s.Enqueue(ctx, "d4", "ping", nil); e.Accepted || e.Reason != "" {
			t.Errorf("delivery without a job: %+v", e)
		}
		if e, _ := s.Enqueue(ctx, "d4", "ping", nil); e.Reason != "duplicate delivery" {
			t.Errorf("repeated delivery without a job: %+v", e)
		}
	})
}

func TestClaimLeaseHeartbeat(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		clock := time.Unix(1_800_000_000, 0)
		s.now = func() time.Time { return clock }
		for i := 0; i < 2; i++ {
			if _, err := s.Enqueue(ctx, fmt.Sprintf("d%d", i), "pull_request", job(fmt.Sprintf("k%d", i), fmt.Sprintf("acme/shop#%d", i), "h")); err != nil {
				t.Fatal(err)
			}
		}
		a, err := s.Claim(ctx, "worker-a", time.Minute)
		if err != nil || a == nil || a.Attempts != 1 || a.LeaseOwner != "worker-a" {
			t.Fatalf("claim a: %+v %v", a, err)
		}
		b, _ := s.Claim(ctx, "worker-b", time.Minute)
		if b == nil || b.ID == a.ID {
			t.Fatalf("claim b: %+v, want the other job", b)
		}
		if c, _ := s.Claim(ctx, "worker-c", time.Minute); c != nil {
			t.Fatalf("claim c: %+v, want nothing while leases hold", c)
		}
		clock = clock.Add(30 * time.Second)
		if err := s.Heartbeat(ctx, a.ID, "worker-a", time.Minute); err != nil {
			t.Fatal(err)
		}
		// b's worker died: its lease expires and c takes the job over; b's heartbeat is refused.
		clock = clock.Add(45 * time.Second)
		c, _ := s.Claim(ctx, "worker-c", time.Minute)
		if c == nil || c.ID != b.ID || c.Attempts != 2 {
			t.Fatalf("claim after b's lease expired: %+v", c)
		}
		if err := s.Heartbeat(ctx, b.ID, "worker-b", time.Minute); !errors.Is(err, ErrLeaseLost) {
			t.Errorf("dead worker's heartbeat: %v", err)
		}
		if err := s.Complete(ctx, b.ID, "worker-b"); !errors.Is(err, ErrLeaseLost) {
			t.Errorf("dead worker's completion: %v", err)
		}
		if err := s.Complete(ctx, c.ID, "worker-c"); err != nil {
			t.Fatal(err)
		}
		counts, _ := s.Counts(ctx)
		if counts[Done] != 1 || counts[Running] != 1 {
			t.Errorf("counts = %v", counts)
		}
	})
}

func TestFailRetriesThenFails(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		clock := time.Unix(1_800_000_000, 0)
		s.now = func() time.Time { return clock }
		if _, err := s.Enqueue(ctx, "d", "pull_request", job("k", "acme/shop#1", "h")); err != nil {
			t.Fatal(err)
		}
		for attempt := 1; attempt <= 3; attempt++ {
			j, _ := s.Claim(ctx, "w", time.Minute)
			if j == nil {
				t.Fatalf("attempt %d: nothing to claim", attempt)
			}
			final, err := s.Fail(ctx, j, "w", errors.New("GitHub answered 502"), time.Second, 3)
			if err != nil {
				t.Fatal(err)
			}
			if final != (attempt == 3) {
				t.Errorf("attempt %d: final = %v", attempt, final)
			}
			if !final {
				// Not before its backoff.
				if again, _ := s.Claim(ctx, "w", time.Minute); again != nil {
					t.Errorf("attempt %d: claimed again before the backoff", attempt)
				}
				clock = clock.Add(time.Duration(1<<(attempt-1)) * time.Second)
			}
		}
		j, _ := s.Job(ctx, 1)
		if j.State != Failed || j.Error != "GitHub answered 502" || j.Attempts != 3 {
			t.Errorf("job = %+v", j)
		}
	})
}

// Four workers claim 100 jobs at once: each runs exactly once.
func TestConcurrentClaimsRunEachJobOnce(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		for i := 0; i < 100; i++ {
			if _, err := s.Enqueue(ctx, fmt.Sprintf("d%d", i), "pull_request", job(fmt.Sprintf("k%d", i), fmt.Sprintf("acme/shop#%d", i), "h")); err != nil {
				t.Fatal(err)
			}
		}
		var mu sync.Mutex
		ran := map[int64]int{}
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				owner := fmt.Sprintf("w%d", w)
				for {
					j, err := s.Claim(ctx, owner, time.Minute)
					if err != nil {
						t.Error(err)
						return
					}
					if j == nil {
						return
					}
					mu.Lock()
					ran[j.ID]++
					mu.Unlock()
					if err := s.Complete(ctx, j.ID, owner); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		if len(ran) != 100 {
			t.Errorf("%d jobs ran, want 100", len(ran))
		}
		for id, n := range ran {
			if n != 1 {
				t.Errorf("job %d ran %d times", id, n)
			}
		}
	})
}

func TestDebatesPublicationsTrust(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		d := &Debate{ID: "deb-1", JobID: 1, Repository: "acme/shop", PRNumber: 7, HeadSHA: "h", Trigger: "pull_request.opened", Protocol: "standard",
			Phases: 2, Checkpoint: []byte(`{"phase":2}`), StartedAt: time.Unix(100, 0)}
		if err := s.SaveCheckpoint(ctx, d); err != nil {
			t.Fatal(err)
		}
		d.Phases, d.Checkpoint = 4, []byte(`{"phase":4}`)
		if err := s.SaveCheckpoint(ctx, d); err != nil {
			t.Fatal(err)
		}
		got, err := s.Debate(ctx, "deb-1")
		if err != nil || got.Phases != 4 || string(got.Checkpoint) != `{"phase":4}` || got.Decision != "" {
			t.Fatalf("checkpointed debate = %+v %v", got, err)
		}
		d.Decision, d.Record, d.Prompt, d.EndedAt = "approve", []byte("decision: {}"), 10, time.Unix(200, 0)
		if err := s.FinishDebate(ctx, d); err != nil {
			t.Fatal(err)
		}
		got, _ = s.Debate(ctx, "deb-1")
		if got.Decision != "approve" || got.Prompt != 10 || !got.EndedAt.Equal(time.Unix(200, 0)) {
			t.Errorf("finished debate = %+v", got)
		}
		if _, err := s.Debate(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("missing debate: %v", err)
		}
		if err := s.SavePublication(ctx, "acme/shop#7", "<!-- debatebot:transcript -->", 11); err != nil {
			t.Fatal(err)
		}
		if err := s.SavePublication(ctx, "acme/shop#7", "<!-- debatebot:transcript -->", 12); err != nil {
			t.Fatal(err)
		}
		if id, err := s.Publication(ctx, "acme/shop#7", "<!-- debatebot:transcript -->"); err != nil || id != 12 {
			t.Errorf("publication = %d %v", id, err)
		}
		if v, _ := s.Trust(ctx, "acme/shop", "security"); v != DefaultTrust {
			t.Errorf("default trust = %g", v)
		}
		var v float64
		for i := 0; i < 3; i++ {
			v, _ = s.LearnTrust(ctx, "acme/shop", "security", true, 0.3)
		}
		if v <= 1.2 {
			t.Errorf("trust after three agreements = %g, want above 1.2 (a senior stakeholder)", v)
		}
		if w, _ := s.LearnTrust(ctx, "acme/shop", "security", false, 0.3); w >= v {
			t.Errorf("trust after a disagreement = %g, want below %g", w, v)
		}
	})
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	for url, want := range map[string]string{
		"mysql://x": "unsupported database url",
		"sqlite:":   "names no file",
		"postgres://debatebot:secret@127.0.0.1:1/db?sslmode=disable&connect_timeout=2": "database postgres://***@127.0.0.1:1/db",
	} {
		_, err := Open(ctx, url)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("Open(%s) = %v, want an error containing %q and no password", url, err, want)
		}
	}
}

func TestStats(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		add := func(id, protocol, decision, level, escalations, human string, secs int, tokens int64) {
			t.Helper()
			if err := s.FinishDebate(ctx, &Debate{ID: id, Repository: "acme/shop", PRNumber: 1, Protocol: protocol, Decision: decision, ConsensusLevel: level,
				Escalations: escalations, HumanDecision: human, Prompt: tokens, StartedAt: time.Unix(0, 0), EndedAt: time.Unix(int64(secs), 0)}); err != nil {
				t.Fatal(err)
			}
		}
		add("1", "standard", "approve", "strong", "", "", 10, 100)
		add("2", "standard", "request_changes", "consensus", "", "approve", 20, 300)         // reversed by a merge
		add("3", "fast-track", "escalate", "none", "no_consensus", "", 4, 0)                 // escalated on its own
		add("4", "standard", "escalate", "none", "human_review", "request_changes", 30, 200) // a human decided
		st, err := s.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Debates != 4 || st.ConsensusRate != 0.5 || st.AutoEscalationRate != 0.25 || st.HumanDecided != 2 || st.ReversalRate != 0.5 ||
			st.TokensPerDebate != 150 || st.MeanSecondsByProtocol["standard"] != 20 || st.MeanSecondsByProtocol["fast-track"] != 4 {
			t.Errorf("stats = %+v", st)
		}
		pending, err := s.PendingHumanDecision(ctx, "acme/shop", 1)
		if !errors.Is(err, ErrNotFound) || pending != nil {
			t.Errorf("pending = %+v %v", pending, err)
		}
		add("5", "standard", "escalate", "none", "human_review", "pending", 1, 0)
		if p, err := s.PendingHumanDecision(ctx, "acme/shop", 1); err != nil || p.ID != "5" {
			t.Errorf("pending = %+v %v", p, err)
		}
		if err := s.SetHumanDecision(ctx, "5", "approve"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.PendingHumanDecision(ctx, "acme/shop", 1); !errors.Is(err, ErrNotFound) {
			t.Errorf("still pending after the decision: %v", err)
		}
	})
}

// A stop requested for a pull request's debates is seen by the worker holding the job at its
// next heartbeat, and by a queued job when it is claimed; jobs of other pull requests and kinds
// are left alone.
func TestRequestCancel(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s := open(t)
		ctx := context.Background()
		for i, j := range []*Job{job("a", "o/r#1", "h1"), job("b", "o/r#1", "h1-cmd"), job("c", "o/r#2", "h2"), {Key: "d", PR: "o/r#1", Kind: "human_review", Payload: []byte(`{}`)}} {
			if j.Key == "b" {
				j.HeadSHA = ""
			}
			if _, err := s.Enqueue(ctx, fmt.Sprintf("d-%d", i), "e", j); err != nil {
				t.Fatal(err)
			}
		}
		running, err := s.Claim(ctx, "w", time.Minute)
		if err != nil || running == nil || running.Key != "a" {
			t.Fatalf("claimed %+v (%v)", running, err)
		}
		if c, err := s.Beat(ctx, running.ID, "w", time.Minute); err != nil || c != "" {
			t.Fatalf("beat before the stop = %q (%v)", c, err)
		}
		n, err := s.RequestCancel(ctx, "o/r#1", "review", CancelHumanReview)
		if err != nil || n != 2 {
			t.Fatalf("flagged %d jobs (%v), want the running and the queued review of o/r#1", n, err)
		}
		if c, err := s.Beat(ctx, running.ID, "w", time.Minute); err != nil || c != CancelHumanReview {
			t.Errorf("beat after the stop = %q (%v)", c, err)
		}
		queued, _ := s.Claim(ctx, "w", time.Minute)
		if queued == nil || queued.Key != "b" || queued.Cancel != CancelHumanReview {
			t.Errorf("the queued job claimed after the stop = %+v", queued)
		}
		other, _ := s.Claim(ctx, "w", time.Minute)
		if other == nil || other.Cancel != "" {
			t.Errorf("a job of another pull request or kind was flagged: %+v", other)
		}
	})
}

// Command debates count against the pull request's hourly bound in the store, so that every
// replica and a restart see the same count; a retried job is counted once.
func TestStartCommand(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s := open(t)
		ctx := context.Background()
		now := time.Unix(1_700_000_000, 0)
		s.now = func() time.Time { return now }
		for i := 0; i < 2; i++ {
			if ok, err := s.StartCommand(ctx, "o/r#1", fmt.Sprintf("k%d", i), 2, time.Hour); err != nil || !ok {
				t.Fatalf("command %d refused (%v)", i, err)
			}
		}
		if ok, _ := s.StartCommand(ctx, "o/r#1", "k2", 2, time.Hour); ok {
			t.Error("a third command debate within the hour was allowed")
		}
		if ok, _ := s.StartCommand(ctx, "o/r#1", "k1", 2, time.Hour); !ok {
			t.Error("a retried job was refused")
		}
		if ok, _ := s.StartCommand(ctx, "o/r#2", "k3", 2, time.Hour); !ok {
			t.Error("another pull request's bound was used")
		}
		now = now.Add(61 * time.Minute)
		if ok, _ := s.StartCommand(ctx, "o/r#1", "k4", 2, time.Hour); !ok {
			t.Error("the bound did not free up after an hour")
		}
	})
}

// A job of higher priority (a command that stops or decides a debate) is claimed before older
// jobs.
func TestClaimPriority(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s := open(t)
		ctx := context.Background()
		stop := &Job{Key: "stop", PR: "o/r#1", Kind: "human_review", Payload: []byte(`{}`), Priority: 1}
		for i, j := range []*Job{job("a", "o/r#1", "h1"), job("b", "o/r#2", "h2"), stop} {
			if _, err := s.Enqueue(ctx, fmt.Sprintf("d-%d", i), "e", j); err != nil {
				t.Fatal(err)
			}
		}
		for _, want := range []string{"stop", "a", "b"} {
			if j, err := s.Claim(ctx, "w", time.Minute); err != nil || j == nil || j.Key != want {
				t.Fatalf("claimed %+v (%v), want %s", j, err, want)
			}
		}
	})
}

func TestPauseAndUnpause(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s := open(t)
		ctx := context.Background()
		clock := time.Unix(1000, 0)
		if err := s.PauseDebate(ctx, "missing", 1, clock, clock.Add(time.Minute)); !errors.Is(err, ErrNotFound) {
			t.Fatalf("pausing a debate that is not stored: %v, want ErrNotFound", err)
		}
		for _, id := range []string{"d1", "d2"} {
			if err := s.SaveCheckpoint(ctx, &Debate{ID: id, JobID: 7, Repository: "o/r", PRNumber: 1, Checkpoint: []byte(`{"a":1}`), StartedAt: clock}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.PausedDebate(ctx, "o/r", 1); !errors.Is(err, ErrNotFound) {
			t.Fatalf("paused debate before any pause: %v", err)
		}
		if err := s.PauseDebate(ctx, "d1", 2, clock, clock.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		p, err := s.PausedDebate(ctx, "o/r", 1)
		if err != nil || p.ID != "d1" || p.JobID != 7 || p.AfterRound != 2 || !p.At.Equal(clock) || !p.Until.Equal(clock.Add(time.Minute)) {
			t.Fatalf("paused = %+v (%v)", p, err)
		}
		if old, err := s.PausedUntil(ctx, clock.Add(time.Minute-1)); err != nil || len(old) != 0 {
			t.Errorf("waits over before the timeout = %+v (%v)", old, err)
		}
		if old, err := s.PausedUntil(ctx, clock.Add(time.Minute)); err != nil || len(old) != 1 || old[0].ID != "d1" {
			t.Errorf("waits over at the timeout = %+v (%v)", old, err)
		}
		if ok, err := s.Unpause(ctx, "d1", 1, []byte(`{"b":2}`)); err != nil || ok {
			t.Errorf("unpausing after the wrong round = %v (%v), want false", ok, err)
		}
		if ok, err := s.Unpause(ctx, "d1", 2, []byte(`{"b":2}`)); err != nil || !ok {
			t.Fatalf("unpause = %v (%v)", ok, err)
		}
		if ok, err := s.Unpause(ctx, "d1", 2, []byte(`{"c":3}`)); err != nil || ok {
			t.Errorf("a second answer = %v (%v), want false", ok, err)
		}
		d, err := s.Debate(ctx, "d1")
		if err != nil || string(d.Checkpoint) != `{"b":2}` {
			t.Errorf("checkpoint after the answer = %s (%v)", d.Checkpoint, err)
		}
		if _, err := s.PausedDebate(ctx, "o/r", 1); !errors.Is(err, ErrNotFound) {
			t.Errorf("still paused after the answer: %v", err)
		}
		if err := s.PauseDebate(ctx, "d2", 1, clock, clock); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.Unpause(ctx, "d2", 1, nil); err != nil || !ok {
			t.Fatalf("unpause keeping the checkpoint = %v (%v)", ok, err)
		}
		if d, err := s.Debate(ctx, "d2"); err != nil || string(d.Checkpoint) != `{"a":1}` {
			t.Errorf("checkpoint after unpausing with none = %s (%v), want the stored one kept", d.Checkpoint, err)
		}
	})
}

func TestNewerHead(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s := open(t)
		ctx := context.Background()
		first := job("a", "o/r#1", "h1")
		for i, j := range []*Job{first, job("b", "o/r#2", "h9")} {
			if _, err := s.Enqueue(ctx, fmt.Sprintf("d-%d", i), "e", j); err != nil {
				t.Fatal(err)
			}
		}
		if newer, err := s.NewerHead(ctx, "o/r#1", "h1", first.ID); err != nil || newer {
			t.Errorf("newer head before any push = %v (%v)", newer, err)
		}
		if _, err := s.Enqueue(ctx, "d-3", "e", job("c", "o/r#1", "h2")); err != nil {
			t.Fatal(err)
		}
		if newer, err := s.NewerHead(ctx, "o/r#1", "h1", first.ID); err != nil || !newer {
			t.Errorf("newer head after a push = %v (%v), want true", newer, err)
		}
	})
}

func TestBeginDebateForgetsAnEarlierRun(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		first := time.Unix(100, 0)
		d := &Debate{ID: "deb-local", Trigger: "cli", Protocol: "standard", StartedAt: first, Source: []byte(`{"diff":"a"}`)}
		if err := s.BeginDebate(ctx, d); err != nil {
			t.Fatal(err)
		}
		got, err := s.Debate(ctx, "deb-local")
		if err != nil || string(got.Source) != `{"diff":"a"}` || got.Phases != 0 || got.Decision != "" {
			t.Fatalf("begun debate = %+v, %v", got, err)
		}
		if err := s.FinishDebate(ctx, &Debate{ID: "deb-local", Trigger: "cli", Protocol: "standard", Decision: "approve", Phases: 5,
			Checkpoint: []byte(`{}`), Record: []byte(`{}`), Prompt: 10, StartedAt: first, EndedAt: first.Add(time.Second), Votes: "a=approve"}); err != nil {
			t.Fatal(err)
		}
		// The finished row keeps the source the debate began with.
		if got, err = s.Debate(ctx, "deb-local"); err != nil || got.Decision != "approve" || string(got.Source) != `{"diff":"a"}` {
			t.Fatalf("finished debate = %+v, %v", got, err)
		}
		// Run again from the start: nothing of the first run is left.
		again := time.Unix(200, 0)
		if err := s.BeginDebate(ctx, &Debate{ID: "deb-local", Trigger: "cli", Protocol: "standard", StartedAt: again, Source: []byte(`{"diff":"b"}`)}); err != nil {
			t.Fatal(err)
		}
		got, err = s.Debate(ctx, "deb-local")
		if err != nil {
			t.Fatal(err)
		}
		if got.Decision != "" || got.Phases != 0 || got.Checkpoint != nil || got.Record != nil || got.Prompt != 0 || !got.StartedAt.Equal(again) || string(got.Source) != `{"diff":"b"}` {
			t.Errorf("a debate begun again kept the earlier run: %+v", got)
		}
		// An App debate has no source.
		if err := s.SaveCheckpoint(ctx, &Debate{ID: "deb-app", Repository: "acme/shop", PRNumber: 7, Trigger: "pull_request", StartedAt: first}); err != nil {
			t.Fatal(err)
		}
		if got, err = s.Debate(ctx, "deb-app"); err != nil || got.Source != nil {
			t.Errorf("app debate = %+v, %v", got, err)
		}
	})
}

// A claim is the first caller's; a swap needs the value it expects; a deleted marker can be
// claimed again; Publications lists what a key holds.
func TestClaimSwapDeletePublications(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		if v, ok, err := s.ClaimPublication(ctx, "acme/shop#alerts", "group", -5); err != nil || !ok || v != -5 {
			t.Fatalf("first claim: %d %v %v", v, ok, err)
		}
		if v, ok, err := s.ClaimPublication(ctx, "acme/shop#alerts", "group", -6); err != nil || ok || v != -5 {
			t.Fatalf("second claim: %d %v %v", v, ok, err)
		}
		if ok, err := s.SwapPublication(ctx, "acme/shop#alerts", "group", -6, 9); err != nil || ok {
			t.Fatalf("swap from a value it does not hold: %v %v", ok, err)
		}
		if ok, err := s.SwapPublication(ctx, "acme/shop#alerts", "group", -5, 9); err != nil || !ok {
			t.Fatalf("swap: %v %v", ok, err)
		}
		if err := s.SavePublication(ctx, "acme/shop#alerts", "alert-1", 9); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Publications(ctx, "acme/shop#alerts"); err != nil || len(got) != 2 || got["group"] != 9 || got["alert-1"] != 9 {
			t.Fatalf("publications: %v %v", got, err)
		}
		if err := s.DeletePublication(ctx, "acme/shop#alerts", "group"); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := s.ClaimPublication(ctx, "acme/shop#alerts", "group", 1); err != nil || !ok {
			t.Fatalf("claim after delete: %v %v", ok, err)
		}
	})
}
