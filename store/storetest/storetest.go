// Package storetest gives tests a SQLite database that already has the store's schema.
//
// Migrating a new database takes a noticeable fraction of a second under the race detector, and
// the App's and the command line's tests open one each. A test's database is instead a copy of
// one migrated once per test process, as a restarted server finds its database; the migrations
// themselves are the store's own tests' business.
package storetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/debatebot/debatebot/store"
)

// migrated is the file of a SQLite database with every migration applied.
var migrated = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "debatebot-storetest-")
	if err != nil {
		return nil, fmt.Errorf("storetest: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "debatebot.db")
	st, err := store.Open(context.Background(), "sqlite:"+path)
	if err != nil {
		return nil, fmt.Errorf("storetest: migrating a database: %w", err)
	}
	// Closing the last connection checkpoints the write-ahead log into the file.
	if err := st.Close(); err != nil {
		return nil, fmt.Errorf("storetest: closing the migrated database: %w", err)
	}
	db, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("storetest: %w", err)
	}
	return db, nil
})

// SQLite writes a migrated database into a new temporary directory of t and returns its path
// (for a database url, "sqlite:" + the path).
func SQLite(t testing.TB) string {
	t.Helper()
	db, err := migrated()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "debatebot.db")
	if err := os.WriteFile(path, db, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
