// Package linters holds code for the maintained linters the runner runs: each function marked
// "want" has the defect its linter reports; its neighbour without the mark is the correct form.
package linters

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"os"
)

// BodyLeaked never closes the response body.
func BodyLeaked(ctx context.Context, c *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(req) // want: bodyclose
	if err != nil {
		return 0, err
	}
	return resp.StatusCode, nil
}

// BodyClosed closes it.
func BodyClosed(ctx context.Context, c *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

// NoContext fetches with http.Get, which no caller can cancel.
func NoContext(url string) error {
	resp, err := http.Get(url) // want: noctx
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// RowsLeaked never closes the rows and never checks their error.
func RowsLeaked(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM t") // want: sqlclosecheck, rowserrcheck
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// RowsClosed closes the rows and checks their error.
func RowsClosed(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM t")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// Config is read from a file.
type Config struct{ Name string }

// DropsError ignores the error of Unmarshal; the unchecked Close and Remove are what golangci-lint
// accepts by default.
func DropsError(path string) Config {
	var c Config
	f, err := os.Open(path)
	if err != nil {
		return c
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return c
	}
	json.Unmarshal(b, &c) // want: errcheck
	os.Remove(path)
	return c
}

// ChecksError checks it.
func ChecksError(b []byte) (Config, error) {
	var c Config
	err := json.Unmarshal(b, &c)
	return c, err
}

// Node is a linked list.
type Node struct {
	Next *Node
	Val  int
}

func find(n *Node, v int) *Node {
	for ; n != nil; n = n.Next {
		if n.Val == v {
			return n
		}
	}
	return nil
}

// NilDeref dereferences what find may return nil for.
func NilDeref(n *Node) int {
	return find(n, 3).Val // want: nilaway
}

// NilChecked checks it first.
func NilChecked(n *Node) int {
	if m := find(n, 3); m != nil {
		return m.Val
	}
	return 0
}
