// Package store keeps the shop's orders in a SQL database.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Order is one customer's order.
type Order struct {
	ID       int64
	Customer string
	Total    int64
	Created  time.Time
	Items    []Item
}

// Item is one line of an order.
type Item struct {
	SKU   string
	Count int
	Price int64
}

// ErrNotFound says that no order has the ID asked for.
var ErrNotFound = errors.New("order not found")

// Store reads and writes orders.
type Store struct {
	db *sql.DB
}

// New returns a Store over db.
func New(db *sql.DB) *Store { return &Store{db: db} }

// Order returns the order with the given ID and its items.
func (s *Store) Order(ctx context.Context, id int64) (*Order, error) {
	o := &Order{ID: id}
	row := s.db.QueryRowContext(ctx, "SELECT customer, total, created FROM orders WHERE id = ?", id)
	if err := row.Scan(&o.Customer, &o.Total, &o.Created); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("reading order %d: %w", id, err)
	}
	rows, err := s.db.QueryContext(ctx, "SELECT sku, count, price FROM items WHERE order_id = ?", id)
	if err != nil {
		return nil, fmt.Errorf("reading items of order %d: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var it Item
		if err := rows.Scan(&it.SKU, &it.Count, &it.Price); err != nil {
			return nil, fmt.Errorf("reading an item of order %d: %w", id, err)
		}
		o.Items = append(o.Items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading items of order %d: %w", id, err)
	}
	return o, nil
}

// ByCustomer lists the IDs of a customer's orders, newest first.
func (s *Store) ByCustomer(ctx context.Context, customer string, limit int) ([]int64, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT id FROM orders WHERE customer = ? ORDER BY created DESC LIMIT ?", customer, limit)
	if err != nil {
		return nil, fmt.Errorf("listing orders of %s: %w", customer, err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("listing orders of %s: %w", customer, err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// Save writes a new order and its items in one transaction and returns its ID.
func (s *Store) Save(ctx context.Context, o *Order) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("saving an order: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	res, err := tx.ExecContext(ctx, "INSERT INTO orders (customer, total, created) VALUES (?, ?, ?)", o.Customer, o.Total, o.Created)
	if err != nil {
		return 0, fmt.Errorf("saving an order: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("saving an order: %w", err)
	}
	for _, it := range o.Items {
		if _, err := tx.ExecContext(ctx, "INSERT INTO items (order_id, sku, count, price) VALUES (?, ?, ?, ?)", id, it.SKU, it.Count, it.Price); err != nil {
			return 0, fmt.Errorf("saving item %s: %w", it.SKU, err)
		}
	}
	return id, tx.Commit()
}

// SKUs returns the distinct SKUs among the given ones that are in stock.
func (s *Store) SKUs(ctx context.Context, skus []string) ([]string, error) {
	if len(skus) == 0 {
		return nil, nil
	}
	marks := strings.TrimSuffix(strings.Repeat("?,", len(skus)), ",")
	args := make([]any, len(skus))
	for i, k := range skus {
		args[i] = k
	}
	rows, err := s.db.QueryContext(ctx, "SELECT DISTINCT sku FROM stock WHERE count > 0 AND sku IN ("+marks+")", args...)
	if err != nil {
		return nil, fmt.Errorf("reading stock: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("reading stock: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}
