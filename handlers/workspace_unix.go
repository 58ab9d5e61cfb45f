//go:build unix

package handlers

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// errLockGone is a lock file removed between its opening and its locking.
var errLockGone = errors.New("the lock file was removed")

// createLocked creates the lock file name, which must not exist, and locks it; errLockGone when
// another process's sweep removed it before the lock was taken.
func createLocked(name string) (func(), error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("failed to create the lock %s: %w", name, err)
	}
	unlock, err := lockOpen(f, name)
	if err != nil {
		return nil, err
	}
	if unlock == nil {
		return nil, errLockGone
	}
	return unlock, nil
}

// tryLock locks the existing lock file name without waiting: nil, nil when another process holds
// it or it was removed meanwhile.
func tryLock(name string) (func(), error) {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return nil, nil
	}
	return lockOpen(f, name)
}

// lockOpen takes an exclusive lock on f, the file at name, without waiting, and checks that name
// is still f (a sweep removes a lock file while holding it): nil, nil when the lock is held
// elsewhere or the file is no longer at name. f is closed unless locked.
func lockOpen(f *os.File, name string) (func(), error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EINTR) {
			return nil, nil
		}
		return nil, fmt.Errorf("failed to lock %s: %w", name, err)
	}
	held, err1 := f.Stat()
	now, err2 := os.Stat(name)
	if err1 != nil || err2 != nil || !os.SameFile(held, now) {
		_ = f.Close()
		return nil, nil
	}
	return func() { _ = f.Close() }, nil
}
