// Package broken does not type-check: analysis degrades but goes on.
package broken

import "sync"

var count int = "zero"

// Guard holds a lock.
type Guard struct{ mu sync.Mutex }

// Use locks g.
func Use(g *Guard) {
	g.mu.Lock()
	defer g.mu.Unlock()
}
