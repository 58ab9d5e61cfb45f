// Package app is the base of a change that introduces defects the analyzers find.
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

// Snapshot reads the count.
func Snapshot(c *Counter) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// Timeout runs work with a deadline.
func Timeout(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return work(ctx)
}

func work(ctx context.Context) error { return ctx.Err() }

// Fetch returns the status of url.
func Fetch(c *http.Client, url string) (int, error) {
	resp, err := c.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, nil
}

// Config is a configuration.
type Config struct{ Name string }

// Describe names the configuration, a default one when there is none.
func Describe(cfg *Config) string {
	if cfg == nil {
		cfg = &Config{Name: "default"}
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
