// Package app calls the store per element of a collection, and searches slices in loops.
package app

import (
	"context"
	"database/sql"
	"net/http"
	"slices"
	"strings"

	"example.com/loops/store"
)

// Names looks each user up through a helper of another package.
func Names(ctx context.Context, st *store.Store, ids []int64) []string {
	var out []string
	for _, id := range ids {
		n, _ := st.UserName(ctx, id) // want: query-in-loop
		out = append(out, n)
	}
	return out
}

// Delete runs one statement per id.
func Delete(ctx context.Context, db *sql.DB, ids []int64) {
	for _, id := range ids {
		_, _ = db.ExecContext(ctx, "DELETE FROM users WHERE id = ?", id) // want: query-in-loop
	}
}

// Through calls the store through an interface one of whose implementations queries.
func Through(ctx context.Context, u store.Users, ids []int64) {
	for i := 0; i < len(ids); i++ {
		_, _ = u.UserName(ctx, ids[i]) // want: query-in-loop
	}
}

// Pages fetches each URL.
func Pages(c *http.Client, urls map[string]bool) {
	for u := range urls {
		if resp, err := store.Fetch(c, u); err == nil { // want: query-in-loop
			resp.Body.Close()
		}
	}
}

// Batched reads all names in one query, then looks them up in a map.
func Batched(ctx context.Context, st *store.Store, ids []int64) []string {
	names, _ := st.Names(ctx, ids)
	var out []string
	for _, id := range ids {
		out = append(out, names[id])
	}
	return out
}

// Fixed loops over an array of constant size.
func Fixed(ctx context.Context, st *store.Store) {
	for _, id := range [3]int64{1, 2, 3} {
		_, _ = st.UserName(ctx, id)
	}
}

// Retry tries a constant number of times.
func Retry(ctx context.Context, st *store.Store) string {
	for i := 0; i < 3; i++ {
		if n, err := st.UserName(ctx, 1); err == nil {
			return n
		}
	}
	return ""
}

// Literal loops over a literal slice.
func Literal(ctx context.Context, st *store.Store) {
	for _, id := range []int64{1, 2} {
		_, _ = st.UserName(ctx, id)
	}
}

// Prepared executes a prepared statement per row, the bulk-insert idiom.
func Prepared(stmt *sql.Stmt, names []string) {
	for _, n := range names {
		_, _ = stmt.Exec(n)
	}
}

// Workers query in goroutines; unbounded goroutines are another rule's business.
func Workers(ctx context.Context, st *store.Store, ids []int64) {
	for _, id := range ids {
		go func() { _, _ = st.UserName(ctx, id) }()
	}
}

// User is a user.
type User struct{ Name, Role string }

// Customer is a customer.
type Customer struct {
	ID   int
	Name string
}

// Order is an order.
type Order struct{ CustomerID int }

// Allowed filters users by a list of names.
func Allowed(users []User, allowed []string) []User {
	var out []User
	for _, u := range users {
		if slices.Contains(allowed, u.Name) {
			out = append(out, u)
		}
	}
	return out
}

// Dedupe keeps the first of equal strings: the list it searches is the one it builds, which the
// analysis leaves alone (the idiom is common for short lists).
func Dedupe(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// Blocked drops the users of another list: both come from the caller.
func Blocked(users []User, blocked []User) []User {
	var out []User
	for _, u := range users {
		if !slices.Contains(blocked, u) {
			out = append(out, u)
		}
	}
	return out
}

func findCustomer(cs []Customer, id int) *Customer {
	for i, c := range cs {
		if c.ID == id {
			return &cs[i]
		}
	}
	return nil
}

// Owners finds each order's customer through a linear helper.
func Owners(orders []Order, customers []Customer) []string {
	var out []string
	for _, o := range orders {
		if c := findCustomer(customers, o.CustomerID); c != nil {
			out = append(out, c.Name)
		}
	}
	return out
}

// Stock holds items.
type Stock struct{ items []string }

func (s *Stock) has(sku string) bool {
	for _, it := range s.items {
		if it == sku {
			return true
		}
	}
	return false
}

// Missing lists the skus the stock lacks.
func (s *Stock) Missing(skus []string) []string {
	var out []string
	for _, sku := range skus {
		if !s.has(sku) {
			out = append(out, sku)
		}
	}
	return out
}

// Joined searches a joined string of names.
func Joined(users []User, names []string) int {
	n := 0
	for _, u := range users {
		if strings.Contains(strings.Join(names, ","), u.Name) {
			n++
		}
	}
	return n
}

var roles = []string{"admin", "owner", "editor"}

// MapLookup indexes the allowed names first.
func MapLookup(users []User, allowed []string) []User {
	set := map[string]bool{}
	for _, a := range allowed {
		set[a] = true
	}
	var out []User
	for _, u := range users {
		if set[u.Name] {
			out = append(out, u)
		}
	}
	return out
}

// Privileged checks a fixed table.
func Privileged(users []User) int {
	n := 0
	for _, u := range users {
		if slices.Contains(roles, u.Role) {
			n++
		}
		if slices.Contains([]string{"root", "admin"}, u.Name) {
			n++
		}
	}
	return n
}

// Local checks a local list of constant size.
func Local(users []User) int {
	kinds := []string{"a", "b"}
	n := 0
	for _, u := range users {
		if slices.Contains(kinds, u.Role) {
			n++
		}
	}
	return n
}

// Few searches for each of a constant number of names.
func Few(allowed []string) int {
	n := 0
	for _, x := range [2]string{"a", "b"} {
		if slices.Contains(allowed, x) {
			n++
		}
	}
	return n
}

// Save writes each name in one transaction, the bulk-write idiom.
func Save(ctx context.Context, tx *sql.Tx, names []string) error {
	for _, n := range names {
		if _, err := tx.ExecContext(ctx, "INSERT INTO users (name) VALUES (?)", n); err != nil {
			return err
		}
	}
	return nil
}

// Check reads each name in a transaction.
func Check(ctx context.Context, tx *sql.Tx, names []string) int {
	found := 0
	for _, n := range names {
		var id int64
		if tx.QueryRowContext(ctx, "SELECT id FROM users WHERE name = ?", n).Scan(&id) == nil { // want: query-in-loop
			found++
		}
	}
	return found
}
