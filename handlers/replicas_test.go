package handlers

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/store"
)

// sharedStores opens two stores on one database, as two replicas would: one SQLite file, and
// PostgreSQL when DEBATEBOT_TEST_POSTGRES is set.
func sharedStores(t *testing.T) map[string][2]*store.Store {
	t.Helper()
	out := map[string][2]*store.Store{}
	ctx := context.Background()
	path := "sqlite:" + filepath.Join(t.TempDir(), "shared.db")
	a, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	out["sqlite"] = [2]*store.Store{a, b}
	dsn := os.Getenv("DEBATEBOT_TEST_POSTGRES")
	if dsn == "" {
		t.Log("PostgreSQL replicas not tested: set DEBATEBOT_TEST_POSTGRES=postgres://user:pass@127.0.0.1:5432/db?sslmode=disable (.ci/run does)")
		return out
	}
	schemaURL := pgSchema(t, dsn, "replicas")
	pa, err := store.Open(ctx, schemaURL)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := store.Open(ctx, schemaURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pa.Close(); pb.Close() })
	out["postgres"] = [2]*store.Store{pa, pb}
	return out
}

// pgSchema creates a schema of its own for a test on the PostgreSQL server at dsn, dropped when
// the test ends, and returns dsn with that schema as its search path.
func pgSchema(t *testing.T, dsn, prefix string) string {
	t.Helper()
	schema := fmt.Sprintf("%s_%d", prefix, time.Now().UnixNano())
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.Exec("DROP SCHEMA " + schema + " CASCADE"); admin.Close() })
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Two replicas share 100 queued debates: each runs exactly once, both do work; a replica that
// dies holding a job leaves its lease to expire and the other takes the job over.
func TestReplicasShareTheWork(t *testing.T) {
	for name, stores := range sharedStores(t) {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			runs := map[string]int{}
			by := map[string]int{}
			run := func(owner string) RunFunc {
				return func(ctx context.Context, j *Job) error {
					time.Sleep(2 * time.Millisecond)
					mu.Lock()
					runs[j.DeliveryID]++
					by[owner]++
					mu.Unlock()
					return nil
				}
			}
			opts := func(owner string) QueueOptions {
				return QueueOptions{Owner: owner, Lease: 500 * time.Millisecond, Heartbeat: 100 * time.Millisecond, Poll: 5 * time.Millisecond, MaxAttempts: 3, Backoff: time.Millisecond}
			}
			// A replica that claims one job and dies with it: its worker never finishes.
			dead := NewQueue(stores[0], func(ctx context.Context, j *Job) error { <-ctx.Done(); return ctx.Err() }, zerolog.Nop(), opts("dead"))
			a := NewQueue(stores[0], run("a"), zerolog.Nop(), opts("a"))
			b := NewQueue(stores[1], run("b"), zerolog.Nop(), opts("b"))
			bg := context.Background()
			for i := 0; i < 100; i++ {
				pr := review.PullRequest{Owner: "acme", Repo: "shop", Number: i + 1}
				if ok, _, err := a.Enqueue(bg, &Job{DeliveryID: fmt.Sprintf("d%d", i), Kind: KindReview, PR: pr, HeadSHA: "h", Trigger: "pull_request.opened"}); !ok || err != nil {
					t.Fatalf("enqueue %d: %v", i, err)
				}
			}
			deadCtx, kill := context.WithCancel(bg)
			dead.Start(deadCtx, 1)
			// Let the dead replica claim a job, then kill it without releasing the lease.
			deadline := time.Now().Add(5 * time.Second)
			for time.Now().Before(deadline) {
				if c, _ := stores[0].Counts(bg); c[store.Running] > 0 {
					break
				}
				time.Sleep(time.Millisecond)
			}
			kill()
			dead.Stop()
			ctx, cancel := context.WithCancel(bg)
			a.Start(ctx, 2)
			b.Start(ctx, 2)
			deadline = time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) {
				if c, _ := stores[0].Counts(bg); c[store.Done] == 100 {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			cancel()
			a.Stop()
			b.Stop()
			mu.Lock()
			defer mu.Unlock()
			if len(runs) != 100 {
				t.Errorf("%d debates ran, want 100 (the dead replica's job taken over)", len(runs))
			}
			for id, n := range runs {
				if n != 1 {
					t.Errorf("%s ran %d times", id, n)
				}
			}
			if by["a"] == 0 || by["b"] == 0 {
				t.Errorf("work split %v: both replicas should run debates", by)
			}
		})
	}
}
