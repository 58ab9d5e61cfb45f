// Package app is the head of a change that introduces defects the analyzers find.
package app

import (
	"context"
	"log"
	"net/http"
	"sync"
	"time"
)

// Counter counts under a lock.
type Counter struct {
	mu sync.Mutex
	n  int
}

// Inc adds one.
func (c *Counter) Inc() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

// Value returns the count.
func (c *Counter) Value() int {
	return c.Value()
}

// Snapshot reads the count.
func Snapshot(c Counter) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// Timeout runs work with a deadline.
func Timeout(ctx context.Context) error {
	ctx, _ = context.WithTimeout(ctx, time.Second)
	return work(ctx)
}

func work(ctx context.Context) error { return ctx.Err() }

// Fetch returns the status of url.
func Fetch(c *http.Client, url string) (int, error) {
	resp, err := c.Get(url)
	defer resp.Body.Close()
	if err != nil {
		return 0, err
	}
	return resp.StatusCode, nil
}

// Config is a configuration.
type Config struct{ Name string }

// Describe names the configuration, a default one when there is none.
func Describe(cfg *Config) string {
	if cfg == nil {
		log.Print("no configuration")
		log.Print("falling back")
		log.Print("to the default")
		log.Printf("using %s", cfg.Name)
	}
	return cfg.Name
}

// Old has had a nil dereference for a long time; the change must not be blamed for it.
func Old(x *Config) string {
	if x == nil {
		return x.Name
	}
	return ""
}
