//go:build !unix

package repocache

import "context"

// lockFile is a no-op where flock is missing: jobs of one process still take the channel lock.
func lockFile(context.Context, string) (func(), error) { return func() {}, nil }
