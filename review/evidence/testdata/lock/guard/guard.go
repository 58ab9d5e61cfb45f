// Package guard infers which mutex guards a field from where the package writes it; the lines
// marked "want" access a guarded field without holding its mutex.
package guard

import (
	"strings"
	"sync"
	"sync/atomic"
)

// Store maps keys to values.
type Store struct {
	mu    sync.RWMutex
	items map[string]int
	gen   int
	name  string // set once by NewStore, never written under mu
	out   *strings.Builder
	hits  int64
}

// NewStore fills a store nobody else has seen yet, through a helper.
func NewStore(name string) *Store {
	s := &Store{name: name}
	s.reset()
	return s
}

// reset is called on a store its caller has just made.
func (s *Store) reset() {
	s.items = map[string]int{}
	s.gen = 0
}

// Put writes under the lock.
func (s *Store) Put(k string, v int) {
	s.mu.Lock()
	s.items[k] = v
	s.gen++
	s.out.WriteString(k) // a pointer method on a pointer field: the field is only read
	atomic.AddInt64(&s.hits, 1)
	s.mu.Unlock()
}

// Log reads the builder, which nothing writes under the lock.
func (s *Store) Log() string { return s.out.String() }

// Hits reads the counter atomically.
func (s *Store) Hits() int64 { return atomic.LoadInt64(&s.hits) }

// Get reads under the read lock.
func (s *Store) Get(k string) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.items[k]
}

// Len reads the map with no lock at all.
func (s *Store) Len() int {
	return len(s.items) // want: lock-after-read
}

// Name reads a field nothing writes under the lock.
func (s *Store) Name() string { return s.name }

// Refresh reads the generation after releasing the lock.
func (s *Store) Refresh() int {
	s.mu.Lock()
	s.items = map[string]int{}
	s.mu.Unlock()
	return s.gen // want: lock-after-read
}

// sizeLocked is called with the lock held, as its name says.
func (s *Store) sizeLocked() int { return len(s.items) }

// total is called only by Total, which holds the lock.
func (s *Store) total() int {
	n := 0
	for _, v := range s.items {
		n += v
	}
	return n
}

// Total locks, then calls the helpers.
func (s *Store) Total() (int, int, int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.total(), s.sizeLocked(), sizeOf(s)
}

// sizeOf is given a store whose lock every caller holds.
func sizeOf(s *Store) int { return len(s.items) }

// countOf is given a store by a caller that does not lock it.
func countOf(s *Store) int {
	return len(s.items) // want: lock-after-read
}

// Stats calls countOf without the lock.
func Stats(s *Store) int { return countOf(s) }

// locker is the program's own lock: it can be turned off.
type locker struct {
	mu  sync.Mutex
	off bool
}

func (l *locker) Lock() {
	if !l.off {
		l.mu.Lock()
	}
}

func (l *locker) Unlock() {
	if !l.off {
		l.mu.Unlock()
	}
}

// Logger formats entries.
type Logger struct {
	mu     locker
	format string
}

// SetFormat writes the format under the logger's lock.
func (l *Logger) SetFormat(f string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.format = f
}

// Entry is one line of a logger.
type Entry struct {
	logger *Logger
	msg    string
}

// Render reads the logger's format without the logger's lock.
func (e *Entry) Render() string {
	return e.logger.format + e.msg // want: lock-after-read
}

// Snapshot reads the logger's format under its lock.
func (e *Entry) Snapshot() string {
	e.logger.mu.Lock()
	f := e.logger.format
	e.logger.mu.Unlock()
	return f + e.msg
}
