package evidence

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/mod/module"
)

// The module cache is shared by every tree and debate, in this process and others: each
// analysis holds a shared lock on it while it reads it, and eviction takes the lock exclusively,
// only when no analysis holds it, so that a module is never removed under a load. Eviction
// removes the least recently used module versions (their extracted folder and their downloaded
// files) until the cache is under its cap; an analysis marks the versions it used.

// cacheLock is the lock file of the cache at dir, beside it (the go command owns the folder).
func cacheLock(dir string) string { return filepath.Clean(dir) + ".lock" }

// useCache takes the cache's shared lock for one analysis; the function returned releases it,
// then evicts what is over the cap if no other analysis is running.
func (m ModuleSettings) useCache(ctx context.Context) (func(), error) {
	if m.Cache == "" || !m.downloads() {
		return func() {}, nil
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Clean(m.Cache)), 0o755); err != nil {
		return nil, fmt.Errorf("failed to prepare the module cache %s: %w", m.Cache, err)
	}
	unlock, _, err := lockCache(ctx, cacheLock(m.Cache), false, false)
	if err != nil {
		return nil, err
	}
	return func() {
		unlock()
		_ = m.evictIfIdle()
	}, nil
}

// evictIfIdle evicts when no analysis holds the cache (see evict).
func (m ModuleSettings) evictIfIdle() error {
	if m.CacheBytes <= 0 {
		return nil
	}
	unlock, ok, err := lockCache(context.Background(), cacheLock(m.Cache), true, true)
	if err != nil || !ok {
		return err
	}
	defer unlock()
	_, err = evict(m.Cache, m.CacheBytes)
	return err
}

// cacheEntry is one module version in the cache: its extracted folder and downloaded files.
type cacheEntry struct {
	paths []string
	size  int64
	used  time.Time
}

// evict removes the least recently used module versions of the cache at dir until it holds at
// most capBytes, and returns how many it removed. The caller holds the exclusive lock.
func evict(dir string, capBytes int64) (int, error) {
	entries, err := cacheEntries(dir)
	if err != nil {
		return 0, err
	}
	var total int64
	list := make([]*cacheEntry, 0, len(entries))
	for _, e := range entries {
		total += e.size
		list = append(list, e)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].used.Before(list[j].used) })
	removed := 0
	var errs []error
	for _, e := range list {
		if total <= capBytes {
			break
		}
		for _, p := range e.paths {
			if err := removeReadOnly(p); err != nil {
				errs = append(errs, err)
			}
		}
		total -= e.size
		removed++
	}
	return removed, errors.Join(errs...)
}

// cacheEntries lists the module versions of the cache at dir by "escaped path@escaped version".
func cacheEntries(dir string) (map[string]*cacheEntry, error) {
	entries := map[string]*cacheEntry{}
	add := func(key, p string, size int64, mod time.Time) {
		e := entries[key]
		if e == nil {
			e = &cacheEntry{}
			entries[key] = e
		}
		e.paths = append(e.paths, p)
		e.size += size
		if mod.After(e.used) {
			e.used = mod
		}
	}
	download := filepath.Join(dir, "cache", "download")
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.IsDir() && p == filepath.Join(dir, "cache"):
			return walkDownloads(download, add)
		case d.IsDir() && strings.Contains(d.Name(), "@"):
			st, err := os.Stat(p)
			if err != nil {
				return nil
			}
			add(filepath.ToSlash(rel), p, dirSize(p), st.ModTime())
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("failed to list the module cache %s: %w", dir, err)
	}
	return entries, nil
}

// walkDownloads adds the downloaded files of each module version (download/<path>/@v/<version>.*).
func walkDownloads(download string, add func(key, p string, size int64, mod time.Time)) error {
	err := filepath.WalkDir(download, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || filepath.Base(filepath.Dir(p)) != "@v" {
			return nil
		}
		name := d.Name()
		ext := filepath.Ext(name)
		if name == "list" || ext == "" {
			return nil
		}
		modPath, err := filepath.Rel(download, filepath.Dir(filepath.Dir(p)))
		if err != nil {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		add(filepath.ToSlash(modPath)+"@"+strings.TrimSuffix(name, ext), p, info.Size(), info.ModTime())
		return nil
	})
	if err != nil {
		return err
	}
	return filepath.SkipDir
}

func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// removeReadOnly removes p as `go clean -modcache` does: the go command makes the extracted
// modules' folders read-only, so they are made writable first.
func removeReadOnly(p string) error {
	_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(q, 0o755)
		}
		return nil
	})
	_ = os.Chmod(filepath.Dir(p), 0o755)
	if err := os.RemoveAll(p); err != nil {
		return fmt.Errorf("failed to evict %s from the module cache: %w", p, err)
	}
	return nil
}

// markUsed marks the module versions mods ("path@version") of the cache at dir as just used.
func markUsed(dir string, mods []string) {
	now := time.Now()
	for _, mv := range mods {
		path, version, ok := strings.Cut(mv, "@")
		if !ok {
			continue
		}
		ep, err1 := module.EscapePath(path)
		ev, err2 := module.EscapeVersion(version)
		if err1 != nil || err2 != nil {
			continue
		}
		_ = os.Chtimes(filepath.Join(dir, filepath.FromSlash(ep)+"@"+ev), now, now)
		for _, ext := range []string{".info", ".mod", ".zip", ".ziphash"} {
			_ = os.Chtimes(filepath.Join(dir, "cache", "download", filepath.FromSlash(ep), "@v", ev+ext), now, now)
		}
	}
}
