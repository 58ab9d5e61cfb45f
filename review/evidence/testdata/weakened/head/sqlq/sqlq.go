// Package sqlq queries users.
package sqlq

import (
	"context"
	"database/sql"
	"strings"
)

// ByName finds a user by name.
func ByName(ctx context.Context, db *sql.DB, name string) (*sql.Rows, error) {
	return db.QueryContext(ctx, "SELECT id FROM users WHERE name = '"+name+"'") // want: bound-param-removed
}

// ByEmail finds a user by email.
func ByEmail(ctx context.Context, db *sql.DB, email string) (*sql.Rows, error) {
	return db.QueryContext(ctx, "SELECT id, name FROM users WHERE email = ?", email)
}

// ByIDs finds users by id.
func ByIDs(ctx context.Context, db *sql.DB, ids []any) (*sql.Rows, error) {
	marks := strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")
	return db.QueryContext(ctx, "SELECT id FROM users WHERE id IN ("+marks+")", ids...)
}

// Signup is a signup form.
type Signup struct {
	Name  string `json:"name" validate:"max=1024"`        // want: validation-loosened
	Email string `json:"email" binding:"omitempty,email"` // want: validation-loosened
	Age   int    `json:"age" validate:"gte=13,lte=120"`
	Plan  string `json:"plan" validate:"oneof=free pro enterprise"` // want: validation-loosened
	Bio   string `json:"bio" validate:"max=256"`
}
