// Package sqlq queries users.
package sqlq

import (
	"context"
	"database/sql"
	"strings"
)

// ByName finds a user by name.
func ByName(ctx context.Context, db *sql.DB, name string) (*sql.Rows, error) {
	return db.QueryContext(ctx, "SELECT id FROM users WHERE name = ?", name)
}

// ByEmail finds a user by email.
func ByEmail(ctx context.Context, db *sql.DB, email string) (*sql.Rows, error) {
	return db.QueryContext(ctx, "SELECT id FROM users WHERE email = ?", email)
}

// ByIDs finds users by id.
func ByIDs(ctx context.Context, db *sql.DB, ids []any) (*sql.Rows, error) {
	return db.QueryContext(ctx, "SELECT id FROM users WHERE id = ?", ids[0])
}

var _ = strings.Repeat

// Signup is a signup form.
type Signup struct {
	Name  string `json:"name" validate:"required,max=64"`
	Email string `json:"email" binding:"required,email"`
	Age   int    `json:"age" validate:"gte=13,lte=130"`
	Plan  string `json:"plan" validate:"oneof=free pro"`
	Bio   string `json:"bio" validate:"max=512"`
}
