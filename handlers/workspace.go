package handlers

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Workspace is one process's folder for its temporary files (the trees of the pull requests it
// debates, the analyzers' scratch): <root>/<pid>-<random>, held for the process's life by an
// exclusive lock on <root>/<pid>-<random>.lock. The operating system drops the lock when the
// process ends, however it ends (a crash, kill -9), so that the next process to start knows the
// folder is left over, while the folder of a live replica sharing root keeps its lock and is
// never touched.
type Workspace struct {
	// Dir is the process's own folder.
	Dir    string
	lock   string
	unlock func()
}

// lockSuffix names a workspace's lock file beside its folder.
const lockSuffix = ".lock"

// OpenWorkspace removes from root the workspaces of processes that are gone, and makes this
// process's own. removed lists the folders it removed; with a workspace, err is what could not
// be removed.
func OpenWorkspace(root string) (w *Workspace, removed []string, err error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, nil, fmt.Errorf("failed to make the work directory %s: %w", root, err)
	}
	// A folder that cannot be removed is reported, and this process starts all the same.
	removed, swept := sweepWorkspaces(root)
	for range 5 {
		var b [6]byte
		_, _ = rand.Read(b[:])
		name := fmt.Sprintf("%d-%s", os.Getpid(), hex.EncodeToString(b[:]))
		lock := filepath.Join(root, name+lockSuffix)
		unlock, err := createLocked(lock)
		if errors.Is(err, errLockGone) || errors.Is(err, fs.ErrExist) {
			continue // another process's sweep took the new lock file away, or a name clash
		}
		if err != nil {
			return nil, removed, err
		}
		dir := filepath.Join(root, name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			unlock()
			_ = os.Remove(lock)
			return nil, removed, fmt.Errorf("failed to make the work directory %s: %w", dir, err)
		}
		return &Workspace{Dir: dir, lock: lock, unlock: unlock}, removed, swept
	}
	return nil, removed, fmt.Errorf("failed to make a work directory in %s: its lock files kept being removed", root)
}

// Close removes the workspace and releases its lock.
func (w *Workspace) Close() error {
	err := os.RemoveAll(w.Dir)
	_ = os.Remove(w.lock)
	w.unlock()
	if err != nil {
		return fmt.Errorf("failed to remove the work directory %s: %w", w.Dir, err)
	}
	return nil
}

// sweepWorkspaces removes the workspaces in root whose lock no process holds, and folders with no
// lock file at all (a workspace's lock is made before its folder and removed after it, so such a
// folder's process is gone). Other files are left alone.
func sweepWorkspaces(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("failed to read the work directory %s: %w", root, err)
	}
	var removed []string
	var errs []error
	remove := func(dir string) {
		if _, err := os.Lstat(dir); err == nil {
			removed = append(removed, dir)
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, fmt.Errorf("failed to remove the left-over work directory %s: %w", dir, err))
		}
	}
	locked := map[string]bool{}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), lockSuffix)
		if !ok || e.IsDir() {
			continue
		}
		locked[name] = true
		lock := filepath.Join(root, e.Name())
		unlock, err := tryLock(lock)
		if err != nil || unlock == nil {
			continue // held by a live process, or gone meanwhile
		}
		remove(filepath.Join(root, name))
		_ = os.Remove(lock)
		unlock()
	}
	for _, e := range entries {
		if !e.IsDir() || locked[e.Name()] {
			continue
		}
		// Its lock may have been made while the folder was being listed.
		if _, err := os.Lstat(filepath.Join(root, e.Name()+lockSuffix)); errors.Is(err, fs.ErrNotExist) {
			remove(filepath.Join(root, e.Name()))
		}
	}
	return removed, errors.Join(errs...)
}
