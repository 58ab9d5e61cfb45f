package handlers

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
)

var pr7 = review.PullRequest{Owner: "acme", Repo: "shop", Number: 7}

// blocking is a RunFunc whose jobs wait until their context ends, reporting why.
type blocking struct {
	mu      sync.Mutex
	started chan *Job
	causes  map[string]error
}

func newBlocking() *blocking {
	return &blocking{started: make(chan *Job, 10), causes: map[string]error{}}
}

func (b *blocking) run(ctx context.Context, job *Job) error {
	b.started <- job
	<-ctx.Done()
	b.mu.Lock()
	b.causes[job.DeliveryID] = context.Cause(ctx)
	b.mu.Unlock()
	return ctx.Err()
}

func (b *blocking) cause(id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.causes[id]
}

func waitStarted(t *testing.T, b *blocking, id string) {
	t.Helper()
	select {
	case j := <-b.started:
		if j.DeliveryID != id {
			t.Fatalf("started %s, want %s", j.DeliveryID, id)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s did not start", id)
	}
}

func testQueue(t *testing.T, run RunFunc) *Queue {
	t.Helper()
	st, err := store.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "q.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return NewQueue(st, run, zerolog.Nop(), QueueOptions{Owner: "test", Lease: time.Minute, Heartbeat: 20 * time.Millisecond, Poll: 5 * time.Millisecond, MaxAttempts: 3, Backoff: time.Millisecond})
}

func TestQueueNewHeadSupersedesRunningDebate(t *testing.T) {
	b := newBlocking()
	q := testQueue(t, b.run)
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); q.Stop() }()
	q.Start(ctx, 2)
	bg := context.Background()
	if ok, _, err := q.Enqueue(bg, &Job{DeliveryID: "a", Kind: KindReview, PR: pr7, HeadSHA: "old", Trigger: "pull_request.opened"}); !ok || err != nil {
		t.Fatalf("first job refused: %v", err)
	}
	waitStarted(t, b, "a")
	if ok, _, _ := q.Enqueue(bg, &Job{DeliveryID: "b", Kind: KindReview, PR: pr7, HeadSHA: "new", Trigger: "pull_request.synchronize"}); !ok {
		t.Fatal("newer head refused")
	}
	waitStarted(t, b, "b")
	deadline := time.Now().Add(5 * time.Second)
	for b.cause("a") == nil && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !errors.Is(b.cause("a"), ErrSuperseded) {
		t.Errorf("the older debate ended with %v, want ErrSuperseded", b.cause("a"))
	}
	// A stop asked for in the store (/human-review, on any replica) is seen at the next
	// heartbeat: the running debate stops with ErrHumanReview.
	if n, err := q.store.RequestCancel(bg, prKey(pr7), string(KindReview), store.CancelHumanReview); n != 1 || err != nil {
		t.Fatalf("stop requested for %d jobs (%v)", n, err)
	}
	for b.cause("b") == nil && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !errors.Is(b.cause("b"), toulmin.ErrHumanReview) {
		t.Errorf("the debate ended with %v, want ErrHumanReview", b.cause("b"))
	}
}

// Another replica's newer head supersedes a running job in the store: this worker learns it at
// its next heartbeat and stops.
func TestQueueHeartbeatLearnsOfSupersession(t *testing.T) {
	b := newBlocking()
	q := testQueue(t, b.run)
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); q.Stop() }()
	q.Start(ctx, 1)
	bg := context.Background()
	q.Enqueue(bg, &Job{DeliveryID: "a", Kind: KindReview, PR: pr7, HeadSHA: "old", Trigger: "pull_request.opened"})
	waitStarted(t, b, "a")
	// Written straight to the store, as another replica's handler would.
	if _, err := q.store.Enqueue(bg, "b", "pull_request", &store.Job{Key: "other", PR: pr7.String(), HeadSHA: "new", Kind: "review", Payload: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for b.cause("a") == nil && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !errors.Is(b.cause("a"), ErrSuperseded) {
		t.Errorf("the debate ended with %v, want ErrSuperseded from the heartbeat", b.cause("a"))
	}
}

func TestQueueDedupesAndRetries(t *testing.T) {
	var mu sync.Mutex
	runs := map[string]int{}
	q := testQueue(t, func(_ context.Context, j *Job) error {
		mu.Lock()
		defer mu.Unlock()
		runs[j.DeliveryID]++
		if j.DeliveryID == "flaky" && runs[j.DeliveryID] < 2 {
			return errors.New("GitHub answered 502")
		}
		if j.DeliveryID == "broken" {
			return errors.New("always fails")
		}
		return nil
	})
	bg := context.Background()
	job := func(id, head string) *Job {
		return &Job{DeliveryID: id, Kind: KindReview, PR: review.PullRequest{Owner: "acme", Repo: "shop", Number: len(id)}, HeadSHA: head, Trigger: "pull_request.opened"}
	}
	if ok, _, _ := q.Enqueue(bg, job("1", "h1")); !ok {
		t.Fatal("refused")
	}
	if ok, reason, _ := q.Enqueue(bg, job("1", "h1")); ok || reason != "duplicate delivery" {
		t.Errorf("same delivery: %v %q", ok, reason)
	}
	if ok, reason, _ := q.Enqueue(bg, job("2", "h1")); ok || reason != "duplicate job" {
		t.Errorf("same head and trigger: %v %q", ok, reason)
	}
	q.Enqueue(bg, job("flaky", "h2"))
	q.Enqueue(bg, job("broken", "h3"))
	ctx, cancel := context.WithCancel(bg)
	defer func() { cancel(); q.Stop() }()
	q.Start(ctx, 2)
	q.Wait()
	mu.Lock()
	defer mu.Unlock()
	if runs["1"] != 1 || runs["flaky"] != 2 || runs["broken"] != 3 {
		t.Errorf("runs = %v, want 1 once, flaky twice (one retry), broken three times (the bound)", runs)
	}
	counts, _ := q.store.Counts(bg)
	if counts[store.Done] != 2 || counts[store.Failed] != 1 {
		t.Errorf("job states = %v", counts)
	}
}
