//go:build !unix

package handlers

import (
	"errors"
	"fmt"
	"os"
)

// errLockGone is a lock file removed between its opening and its locking.
var errLockGone = errors.New("the lock file was removed")

// createLocked creates the lock file name; without file locks it is only a marker.
func createLocked(name string) (func(), error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("failed to create the lock %s: %w", name, err)
	}
	return func() { _ = f.Close() }, nil
}

// tryLock never takes another process's workspace where files cannot be locked: left-over
// workspaces are not removed there.
func tryLock(string) (func(), error) { return nil, nil }
