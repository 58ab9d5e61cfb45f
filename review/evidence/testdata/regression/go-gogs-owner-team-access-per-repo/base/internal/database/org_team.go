package database

import (
	"context"
	"database/sql"
	"fmt"
)

// Access modes.
const (
	AccessModeNone  = 0
	AccessModeRead  = 1
	AccessModeWrite = 2
	AccessModeAdmin = 3
	AccessModeOwner = 4
)

// Team is a team of an organization.
type Team struct {
	ID        int64
	OrgID     int64
	LowerName string
	Authorize int
	Repos     []*Repository
}

// Repository is a repository of an organization.
type Repository struct {
	ID      int64
	OwnerID int64
}

// IsOwnerTeam reports whether the team is the organization's owners team.
func (t *Team) IsOwnerTeam() bool { return t.LowerName == "owners" }

// recalculateTeamAccesses recomputes every user's access to repo from the teams that
// have it (several queries per repository).
func (repo *Repository) recalculateTeamAccesses(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "SELECT t.authorize, tu.uid FROM team t JOIN team_repo tr ON tr.team_id = t.id JOIN team_user tu ON tu.team_id = t.id WHERE tr.repo_id = ?", repo.ID)
	if err != nil {
		return fmt.Errorf("get teams of repository %d: %w", repo.ID, err)
	}
	defer rows.Close()
	modes := map[int64]int{}
	for rows.Next() {
		var mode int
		var uid int64
		if err := rows.Scan(&mode, &uid); err != nil {
			return err
		}
		modes[uid] = max(modes[uid], mode)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM access WHERE repo_id = ?", repo.ID); err != nil {
		return fmt.Errorf("delete old accesses: %w", err)
	}
	for uid, mode := range modes {
		if _, err := tx.ExecContext(ctx, "INSERT INTO access (user_id, repo_id, mode) VALUES (?, ?, ?)", uid, repo.ID, mode); err != nil {
			return fmt.Errorf("insert access: %w", err)
		}
	}
	return nil
}

// grantUserOwnerAccess grants owner access to every repository of the organization with
// two statements, whatever the number of repositories.
func grantUserOwnerAccess(ctx context.Context, tx *sql.Tx, orgID, userID int64) error {
	_, err := tx.ExecContext(ctx,
		"UPDATE access SET mode = ? WHERE user_id = ? AND mode < ? AND repo_id IN (SELECT id FROM repository WHERE owner_id = ?)",
		AccessModeOwner, userID, AccessModeOwner, orgID)
	if err != nil {
		return fmt.Errorf("upgrade existing accesses to owner: %w", err)
	}
	_, err = tx.ExecContext(ctx,
		"INSERT INTO access (user_id, repo_id, mode) SELECT ?, r.id, ? FROM repository r WHERE r.owner_id = ? AND NOT EXISTS (SELECT 1 FROM access a WHERE a.user_id = ? AND a.repo_id = r.id)",
		userID, AccessModeOwner, orgID, userID)
	if err != nil {
		return fmt.Errorf("insert owner accesses: %w", err)
	}
	return nil
}

// AddTeamMember adds a user to a team and gives them access to the team's repositories.
func AddTeamMember(ctx context.Context, db *sql.DB, t *Team, userID int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "INSERT INTO team_user (org_id, team_id, uid) VALUES (?, ?, ?)", t.OrgID, t.ID, userID); err != nil {
		return fmt.Errorf("insert team user: %w", err)
	}

	// Give access to team repositories.
	if t.IsOwnerTeam() {
		if err := grantUserOwnerAccess(ctx, tx, t.OrgID, userID); err != nil {
			return err
		}
	} else {
		for _, repo := range t.Repos {
			if err := repo.recalculateTeamAccesses(ctx, tx); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}
