package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Dismissal is a finding a maintainer dismissed in one repository, kept by its fingerprint (see
// scan.Fingerprint): later debates of the repository drop findings with that fingerprint.
type Dismissal struct {
	Repository  string
	Fingerprint string
	// Rule, Path and Line are where the finding was when it was dismissed; Excerpt what the
	// bot's comment said of it (for the dashboard).
	Rule, Path string
	Line       int
	PRNumber   int
	// By is the login that dismissed it, Reason what they gave (may be empty), CommentURL the
	// reply on GitHub.
	By, Reason, CommentURL string
	Excerpt                string
	At                     time.Time
}

// Dismiss keeps a dismissal. It reports false, and keeps the first, when the fingerprint was
// dismissed in the repository already: a retried job or a second reply changes nothing.
func (s *Store) Dismiss(ctx context.Context, d *Dismissal) (bool, error) {
	if d.Repository == "" || d.Fingerprint == "" {
		return false, errors.New("a dismissal needs its repository and the finding's fingerprint")
	}
	res, err := s.db.ExecContext(ctx, s.q(`INSERT INTO dismissals (repository, fingerprint, rule, path, line, pr_number, dismissed_by, reason, comment_url, excerpt, at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (repository, fingerprint) DO NOTHING`),
		d.Repository, d.Fingerprint, d.Rule, d.Path, d.Line, d.PRNumber, d.By, d.Reason, d.CommentURL, d.Excerpt, d.At.UnixNano())
	if err != nil {
		return false, fmt.Errorf("failed to keep the dismissal of %s in %s: %w", d.Fingerprint, d.Repository, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("failed to keep the dismissal of %s in %s: %w", d.Fingerprint, d.Repository, err)
	}
	return n > 0, nil
}

// Undismiss forgets a dismissal: the finding is raised again by the repository's next debates.
// It reports false when there was no such dismissal.
func (s *Store) Undismiss(ctx context.Context, repository, fingerprint string) (bool, error) {
	res, err := s.db.ExecContext(ctx, s.q("DELETE FROM dismissals WHERE repository = ? AND fingerprint = ?"), repository, fingerprint)
	if err != nil {
		return false, fmt.Errorf("failed to undo the dismissal of %s in %s: %w", fingerprint, repository, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("failed to undo the dismissal of %s in %s: %w", fingerprint, repository, err)
	}
	return n > 0, nil
}

// Dismissals lists the dismissals of the repositories given, newest first.
func (s *Store) Dismissals(ctx context.Context, repositories []string) ([]Dismissal, error) {
	if len(repositories) == 0 {
		return nil, nil
	}
	in, args := "?", []any{repositories[0]}
	for _, r := range repositories[1:] {
		in += ", ?"
		args = append(args, r)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT repository, fingerprint, rule, path, line, pr_number, dismissed_by, reason, comment_url, excerpt, at
		FROM dismissals WHERE repository IN (`+in+`) ORDER BY at DESC, repository, fingerprint`), args...)
	if err != nil {
		return nil, fmt.Errorf("failed to list dismissals: %w", err)
	}
	defer rows.Close()
	var out []Dismissal
	for rows.Next() {
		var d Dismissal
		var at int64
		if err := rows.Scan(&d.Repository, &d.Fingerprint, &d.Rule, &d.Path, &d.Line, &d.PRNumber, &d.By, &d.Reason, &d.CommentURL, &d.Excerpt, &at); err != nil {
			return nil, fmt.Errorf("failed to read a dismissal: %w", err)
		}
		d.At = time.Unix(0, at)
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("failed to list dismissals: %w", err)
	}
	return out, nil
}

// DismissalRepositories lists the repositories that have dismissals, by name.
func (s *Store) DismissalRepositories(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT DISTINCT repository FROM dismissals ORDER BY repository")
	if err != nil {
		return nil, fmt.Errorf("failed to list the repositories with dismissals: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			return nil, fmt.Errorf("failed to list the repositories with dismissals: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// DismissedFingerprints returns the set of a repository's dismissed fingerprints, read once
// before a debate gathers its evidence.
func (s *Store) DismissedFingerprints(ctx context.Context, repository string) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, s.q("SELECT fingerprint FROM dismissals WHERE repository = ?"), repository)
	if err != nil {
		return nil, fmt.Errorf("failed to read the dismissals of %s: %w", repository, err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var fp string
		if err := rows.Scan(&fp); err != nil {
			return nil, fmt.Errorf("failed to read the dismissals of %s: %w", repository, err)
		}
		out[fp] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("failed to read the dismissals of %s: %w", repository, err)
	}
	return out, nil
}
