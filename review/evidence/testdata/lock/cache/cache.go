// Package cache guards its fields with mutexes; the methods marked "want" read a guarded field
// before they lock.
package cache

import (
	"strconv"
	"sync"
	"sync/atomic"
)

// Cache maps keys to values.
type Cache struct {
	mu        sync.Mutex
	items     map[string]string
	hits      int
	evictions int
	name      string // set by New, never written under mu
	closed    atomic.Bool
}

// New returns an empty cache.
func New(name string) *Cache { return &Cache{name: name, items: map[string]string{}} }

// Put stores a value.
func (c *Cache) Put(k, v string) {
	c.mu.Lock()
	c.items[k] = v
	c.mu.Unlock()
}

// Get returns a value and counts the hit.
func (c *Cache) Get(k string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.items[k]
	if ok {
		c.hits++
	}
	return v, ok
}

// Len reads the map before locking.
func (c *Cache) Len() int {
	n := len(c.items) // want: lock-after-read
	c.mu.Lock()
	defer c.mu.Unlock()
	return n
}

// Hits takes a fast path without the lock.
func (c *Cache) Hits() int {
	if c.hits == 0 { // want: lock-after-read
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits
}

// Evict unlocks early when the key is absent; the count is still written with the lock held.
func (c *Cache) Evict(k string) bool {
	c.mu.Lock()
	if _, ok := c.items[k]; !ok {
		c.mu.Unlock()
		return false
	}
	delete(c.items, k)
	c.evictions++
	c.mu.Unlock()
	return true
}

// Evictions reads the count before locking.
func (c *Cache) Evictions() string {
	s := strconv.Itoa(c.evictions) // want: lock-after-read
	c.mu.Lock()
	defer c.mu.Unlock()
	return s
}

// lenLocked is called with the lock held: it does not lock.
func (c *Cache) lenLocked() int { return len(c.items) }

// Size locks, then calls a helper that reads.
func (c *Cache) Size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lenLocked()
}

// Describe reads the name, which nothing writes under the lock.
func (c *Cache) Describe() string {
	n := c.name
	c.mu.Lock()
	defer c.mu.Unlock()
	return n + ":" + strconv.Itoa(len(c.items))
}

// Close checks an atomic flag before locking.
func (c *Cache) Close() {
	if c.closed.Swap(true) {
		return
	}
	c.mu.Lock()
	c.items = nil
	c.mu.Unlock()
}

// Registry embeds its lock.
type Registry struct {
	sync.RWMutex
	names []string
}

// Add appends a name.
func (r *Registry) Add(n string) {
	r.Lock()
	r.names = append(r.names, n)
	r.Unlock()
}

// First checks the length without the read lock.
func (r *Registry) First() string {
	if len(r.names) == 0 { // want: lock-after-read
		return ""
	}
	r.RLock()
	defer r.RUnlock()
	return r.names[0]
}

// Last reads with the read lock held.
func (r *Registry) Last() string {
	r.RLock()
	defer r.RUnlock()
	if len(r.names) == 0 {
		return ""
	}
	return r.names[len(r.names)-1]
}

// Group holds caches.
type Group struct {
	mu     sync.Mutex
	caches map[string]*Cache
}

// Hits sums the hits of every cache without locking them.
func (g *Group) Hits() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, c := range g.caches {
		n += c.hits // want: lock-after-read
	}
	return n
}

// Sizes locks each cache before reading it.
func (g *Group) Sizes() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, c := range g.caches {
		c.mu.Lock()
		n += len(c.items)
		c.mu.Unlock()
	}
	return n
}

// sumLocked is given a cache whose lock its caller holds.
func sumLocked(c *Cache) int { return c.hits }

// Fresh fills a cache nobody else has seen yet.
func Fresh() *Cache {
	c := &Cache{items: map[string]string{}}
	c.hits = len(c.items)
	return c
}
