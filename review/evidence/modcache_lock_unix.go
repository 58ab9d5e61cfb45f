//go:build unix

package evidence

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockCache takes a flock on name, shared (analyses reading the module cache) or exclusive
// (eviction), polling so that ctx ends the wait; with try it does not wait and reports
// whether it got the lock.
func lockCache(ctx context.Context, name string, exclusive, try bool) (func(), bool, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("failed to open the module cache's lock %s: %w", name, err)
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); _ = f.Close() }, true, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, false, fmt.Errorf("failed to lock the module cache's lock %s: %w", name, err)
		}
		if try {
			_ = f.Close()
			return nil, false, nil
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, false, fmt.Errorf("waited for the module cache's lock %s: %w", name, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
