package storetest

import (
	"context"
	"testing"

	"github.com/debatebot/debatebot/store"
)

// Each copy is a database of its own with the whole schema: the store opens it and keeps a job
// in it, and another copy does not see that job.
func TestCopiesAreMigratedAndIndependent(t *testing.T) {
	ctx := context.Background()
	a, b := SQLite(t), SQLite(t)
	if a == b {
		t.Fatalf("two copies share the path %s", a)
	}
	sa, err := store.Open(ctx, "sqlite:"+a)
	if err != nil {
		t.Fatal(err)
	}
	defer sa.Close()
	if _, err := sa.Enqueue(ctx, "d-1", "pull_request.opened", &store.Job{Key: "k", PR: "acme/shop#7", Kind: "review", Payload: []byte("{}")}); err != nil {
		t.Fatalf("enqueue into a copy: %v", err)
	}
	sb, err := store.Open(ctx, "sqlite:"+b)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	ca, err := sa.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cb, err := sb.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ca[store.Queued] != 1 || cb[store.Queued] != 0 {
		t.Errorf("queued jobs: %d in the first copy, %d in the second; want 1 and 0", ca[store.Queued], cb[store.Queued])
	}
}
