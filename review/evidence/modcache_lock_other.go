//go:build !unix

package evidence

import "context"

// lockCache is a no-op where flock is missing: eviction may then remove a module another
// process is reading, which that process reports as a degraded package.
func lockCache(context.Context, string, bool, bool) (func(), bool, error) {
	return func() {}, true, nil
}
