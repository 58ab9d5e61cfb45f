// Package conc fetches with a timeout and counts under a lock.
package conc

import (
	"context"
	"sync"
)

func work() (int, error) { return 1, nil }

type result struct {
	n   int
	err error
}

// Fetch waits for the work or the context.
func Fetch(ctx context.Context) (int, error) {
	ch := make(chan result)
	go func() {
		n, err := work()
		ch <- result{n, err}
	}()
	select {
	case r := <-ch:
		return r.n, r.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// Wait waits for the work.
func Wait() (int, error) {
	ch := make(chan result)
	go func() {
		n, err := work()
		ch <- result{n, err}
	}()
	r := <-ch
	return r.n, r.err
}

// Counter counts.
type Counter struct {
	mu    sync.Mutex
	count int
	peak  int
}

// Add adds n.
func (c *Counter) Add(n int) {
	c.mu.Lock()
	c.count += n
	if c.count > c.peak {
		c.peak = c.count
	}
	c.mu.Unlock()
}

// Snapshot returns the count and the peak.
func (c *Counter) Snapshot() (int, int) {
	n := c.count // want: lock-moved-after-read
	c.mu.Lock()
	defer c.mu.Unlock()
	return n, c.peak
}

// Peak returns the peak.
func (c *Counter) Peak() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.peak
}
