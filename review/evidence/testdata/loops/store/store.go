// Package store reads users from the database, one at a time or in a batch.
package store

import (
	"context"
	"database/sql"
	"net/http"
	"strings"
)

// Store reads users.
type Store struct{ db *sql.DB }

// Users is what callers need of a store.
type Users interface {
	UserName(ctx context.Context, id int64) (string, error)
}

// UserName reads one user's name.
func (s *Store) UserName(ctx context.Context, id int64) (string, error) {
	var n string
	err := s.db.QueryRowContext(ctx, "SELECT name FROM users WHERE id = ?", id).Scan(&n)
	return n, err
}

// lookup reads a name through UserName.
func (s *Store) lookup(ctx context.Context, id int64) string {
	n, _ := s.UserName(ctx, id)
	return n
}

// Labels looks every id up through a helper of the same package.
func (s *Store) Labels(ctx context.Context, ids []int64) []string {
	var out []string
	for _, id := range ids {
		out = append(out, s.lookup(ctx, id)) // want: query-in-loop
	}
	return out
}

// Names reads many users in one query.
func (s *Store) Names(ctx context.Context, ids []int64) (map[int64]string, error) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.db.QueryContext(ctx, "SELECT id, name FROM users WHERE id IN (?"+strings.Repeat(",?", len(ids)-1)+")", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var n string
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = n
	}
	return out, rows.Err()
}

// Fetch gets a URL.
func Fetch(c *http.Client, url string) (*http.Response, error) { return c.Get(url) }
