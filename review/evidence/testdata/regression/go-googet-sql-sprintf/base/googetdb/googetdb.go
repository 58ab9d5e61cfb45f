package googetdb

import (
	"context"
	"database/sql"
	"encoding/json"
)

// PackageState is an installed package as the database keeps it.
type PackageState struct {
	Name string `json:"name"`
	Arch string `json:"arch"`
	Ver  string `json:"ver"`
}

// GooDB is the installed-package database.
type GooDB struct {
	db *sql.DB
}

// RemovePkg removes a package from the database.
func (g *GooDB) RemovePkg(pkgName, arch string) error {
	tx, err := g.db.Begin()
	if err != nil {
		return err
	}
	query := `DELETE FROM InstalledPackages where pkg_name = ? and pkg_arch = ?`
	if _, err := tx.ExecContext(context.Background(), query, pkgName, arch); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// FetchPkgs returns the installed packages whose name matches pkgName (all if it is empty).
func (g *GooDB) FetchPkgs(pkgName string) ([]PackageState, error) {
	query := `SELECT pkg_json FROM InstalledPackages ORDER BY pkg_name`
	var args []any
	if pkgName != "" {
		query = `SELECT pkg_json FROM InstalledPackages WHERE pkg_name LIKE ? ORDER BY pkg_name`
		args = []any{pkgName}
	}
	rows, err := g.db.Query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []PackageState
	for rows.Next() {
		var js string
		if err := rows.Scan(&js); err != nil {
			return nil, err
		}
		var ps PackageState
		if err := json.Unmarshal([]byte(js), &ps); err != nil {
			return nil, err
		}
		out = append(out, ps)
	}
	return out, rows.Err()
}
