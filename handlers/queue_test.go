package handlers

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review"
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

func TestQueueNewHeadSupersedesRunningDebate(t *testing.T) {
	b := newBlocking()
	q := NewQueue(10, b.run, zerolog.Nop())
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); q.Stop() }()
	q.Start(ctx, 2)
	if ok, _, err := q.Enqueue(&Job{DeliveryID: "a", Kind: KindReview, PR: pr7, HeadSHA: "old", Trigger: "pull_request.opened"}); !ok || err != nil {
		t.Fatal("first job refused")
	}
	waitStarted(t, b, "a")
	if ok, _, _ := q.Enqueue(&Job{DeliveryID: "b", Kind: KindReview, PR: pr7, HeadSHA: "new", Trigger: "pull_request.synchronize"}); !ok {
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
	// /human-review stops the running debate with ErrHumanReview.
	if ok, reason, _ := q.Enqueue(&Job{DeliveryID: "c", Kind: KindHumanReview, PR: pr7}); !ok || reason != "stopping the running debate for human review" {
		t.Fatalf("human review: %v %q", ok, reason)
	}
	for b.cause("b") == nil && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !errors.Is(b.cause("b"), toulmin.ErrHumanReview) {
		t.Errorf("the debate ended with %v, want ErrHumanReview", b.cause("b"))
	}
}

func TestQueueDedupesAndBounds(t *testing.T) {
	q := NewQueue(2, func(context.Context, *Job) error { return nil }, zerolog.Nop())
	job := func(id, head string) *Job {
		return &Job{DeliveryID: id, Kind: KindReview, PR: pr7, HeadSHA: head, Trigger: "pull_request.opened"}
	}
	if ok, _, _ := q.Enqueue(job("1", "h1")); !ok {
		t.Fatal("refused")
	}
	if ok, reason, _ := q.Enqueue(job("1", "h1")); ok || reason != "delivery already accepted" {
		t.Errorf("same delivery: %v %q", ok, reason)
	}
	if ok, reason, _ := q.Enqueue(job("2", "h1")); ok || reason != "this head was already debated for this trigger" {
		t.Errorf("same head and trigger: %v %q", ok, reason)
	}
	if ok, _, _ := q.Enqueue(job("3", "h2")); !ok {
		t.Fatal("second head refused")
	}
	// No workers run: the third waiting job finds the queue full, and is not marked as seen,
	// so that GitHub's redelivery is accepted later.
	if _, _, err := q.Enqueue(job("4", "h3")); !errors.Is(err, ErrQueueFull) {
		t.Errorf("full queue: err = %v", err)
	}
	if q.deliveries["4"] || q.keys["acme/shop#7@h3/pull_request.opened/"] {
		t.Error("a refused delivery was remembered")
	}
}

func TestParseCommand(t *testing.T) {
	for body, want := range map[string][2]string{
		"/debate":                    {"/debate", ""},
		"  /debate fast-track\nmore": {"/debate", "fast-track"},
		"/human-review approve":      {"/human-review", "approve"},
		"please /debate":             {"", ""},
		"/debater":                   {"", ""},
	} {
		cmd, arg, _ := ParseCommand(body)
		if cmd != want[0] || arg != want[1] {
			t.Errorf("ParseCommand(%q) = %q %q, want %q %q", body, cmd, arg, want[0], want[1])
		}
	}
}
