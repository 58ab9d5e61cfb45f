package handlers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/store"
)

// proxy forwards loopback connections to a database and can cut them all, as an outage would.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			if p.down {
				p.mu.Unlock()
				c.Close()
				continue
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				p.mu.Unlock()
				c.Close()
				continue
			}
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	return p
}

func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *proxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

// The database goes away while the server runs: deliveries are refused (503, so GitHub can
// redeliver) rather than acknowledged and lost; workers keep trying; when the database returns,
// redelivered jobs are accepted and every job runs.
func TestDatabaseOutageLosesNothing(t *testing.T) {
	dsn := os.Getenv("DEBATEBOT_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("needs PostgreSQL: set DEBATEBOT_TEST_POSTGRES=postgres://user:pass@127.0.0.1:5432/db?sslmode=disable (.ci/run does)")
	}
	u, err := url.Parse(pgSchema(t, dsn, "outage"))
	if err != nil {
		t.Fatal(err)
	}
	px := newProxy(t, u.Host)
	u.Host = px.ln.Addr().String()
	q := u.Query()
	q.Set("connect_timeout", "2")
	u.RawQuery = q.Encode()
	st, err := store.Open(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	var mu sync.Mutex
	ran := map[string]int{}
	queue := NewQueue(st, func(_ context.Context, j *Job) error {
		mu.Lock()
		ran[j.DeliveryID]++
		mu.Unlock()
		return nil
	}, zerolog.Nop(), QueueOptions{Owner: "o", Lease: time.Second, Heartbeat: 250 * time.Millisecond, Poll: 10 * time.Millisecond, MaxAttempts: 3, Backoff: time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); queue.Stop() }()
	queue.Start(ctx, 2)
	enqueue := func(id string, n int) (bool, error) {
		ok, _, err := queue.Enqueue(context.Background(), &Job{DeliveryID: id, Kind: KindReview, PR: review.PullRequest{Owner: "acme", Repo: "shop", Number: n}, HeadSHA: "h", Trigger: "pull_request.opened"})
		return ok, err
	}
	for i := 0; i < 10; i++ {
		if ok, err := enqueue(fmt.Sprintf("before-%d", i), i); !ok || err != nil {
			t.Fatalf("before the outage: %v", err)
		}
	}
	px.cut()
	var refused []string
	for i := 0; i < 10; i++ {
		id := fmt.Sprintf("during-%d", i)
		ok, err := enqueue(id, 100+i)
		if ok || !errors.Is(err, ErrUnavailable) {
			t.Errorf("during the outage: accepted %v, err %v; want a refusal the handler answers 503", ok, err)
		}
		if err != nil && !strings.Contains(err.Error(), "store is unavailable") {
			t.Errorf("unclear error: %v", err)
		}
		refused = append(refused, id)
	}
	time.Sleep(300 * time.Millisecond) // workers fail to claim meanwhile, and keep trying
	px.restore()
	for i, id := range refused {
		if ok, err := enqueue(id, 100+i); !ok || err != nil {
			t.Errorf("redelivery of %s after the outage: %v", id, err)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		n := len(ran)
		mu.Unlock()
		if n == 20 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ran) != 20 {
		t.Errorf("%d jobs ran, want 20 (10 before, 10 redelivered after the outage)", len(ran))
	}
	for id, n := range ran {
		if n != 1 {
			t.Errorf("%s ran %d times", id, n)
		}
	}
}
