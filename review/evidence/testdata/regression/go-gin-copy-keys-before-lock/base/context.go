package gin

import (
	"maps"
	"sync"
)

// Context carries the request-scoped values of one request.
type Context struct {
	mu       sync.RWMutex
	Keys     map[string]any
	fullPath string
	handlers []func(*Context)
}

// Set stores a value for the request; handlers may call it from several goroutines.
func (c *Context) Set(key string, value any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Keys == nil {
		c.Keys = make(map[string]any)
	}
	c.Keys[key] = value
}

// Get returns the value stored under key.
func (c *Context) Get(key string) (any, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.Keys[key]
	return v, ok
}

// Copy returns a copy of the context that is safe to use outside the request scope,
// for example in a goroutine.
func (c *Context) Copy() *Context {
	cp := Context{}
	cp.handlers = nil
	cp.fullPath = c.fullPath

	c.mu.RLock()
	cp.Keys = maps.Clone(c.Keys)
	c.mu.RUnlock()
	return &cp
}
