package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Statuses of a debate as the dashboard shows them, derived from the debate's row and its job.
const (
	StatusQueued     = "queued"
	StatusRunning    = "running"
	StatusPaused     = "paused"
	StatusDecided    = "decided"
	StatusEscalated  = "escalated"
	StatusFailed     = "failed"
	StatusSuperseded = "superseded"
)

// Statuses lists every status, in the order a filter offers them.
var Statuses = []string{StatusQueued, StatusRunning, StatusPaused, StatusDecided, StatusEscalated, StatusFailed, StatusSuperseded}

// statusSQL derives a debate's status in SQL, so that the list filters on it in the database: a
// decision is final; an undecided debate is paused at a checkpoint, or as far as its job got. An
// undecided, unpaused debate whose job is done waits for the job that resumes it: queued.
const statusSQL = `CASE WHEN d.decision = 'escalate' THEN 'escalated'
	WHEN d.decision <> '' THEN 'decided'
	WHEN d.paused_after > 0 THEN 'paused'
	WHEN j.state = 'running' THEN 'running'
	WHEN j.state = 'failed' THEN 'failed'
	WHEN j.state = 'superseded' THEN 'superseded'
	ELSE 'queued' END`

// Listed is a debate as the dashboard lists it: its row without checkpoint and record, its
// status, and the round it is paused after (0 when it is not paused).
type Listed struct {
	Debate
	Status      string
	PausedAfter int
	// Pending is set on a debate that has not begun: its job is queued, or running its first
	// phase. It has no page yet; ID is "job-N".
	Pending bool
}

// Cursor is where a page of the list ends: the next page starts after it (keyset pagination,
// newest first, so that a page costs the same however deep it is).
type Cursor struct {
	StartedAt int64
	ID        string
}

// String encodes the cursor for a URL.
func (c Cursor) String() string { return strconv.FormatInt(c.StartedAt, 10) + "." + c.ID }

// ParseCursor reads a cursor String wrote.
func ParseCursor(s string) (Cursor, error) {
	at, id, ok := strings.Cut(s, ".")
	n, err := strconv.ParseInt(at, 10, 64)
	if !ok || err != nil || id == "" {
		return Cursor{}, fmt.Errorf("page cursor %q is not TIME.ID", s)
	}
	return Cursor{StartedAt: n, ID: id}, nil
}

// ListFilter selects a page of debates.
type ListFilter struct {
	// Readable are the repositories the viewer may see: only their debates are listed (none
	// when it is empty).
	Readable []string
	// Repository and Status, when set, narrow the list to one repository and one status.
	Repository, Status string
	// Text, when set, keeps the debates whose pull request's title or repository contains it
	// (case-insensitively, as plain text: % and _ are no wildcards), or whose number it is
	// ("7" or "#7"). It is cut to MaxText characters.
	Text string
	// LatestPerPull lists only the latest debate of each pull request (Pulls reads the others):
	// the filters then apply to that debate.
	LatestPerPull bool
	// After is the cursor of the previous page's last debate.
	After *Cursor
	// Limit is the page's size (50 when 0).
	Limit int
}

// MaxText bounds the list's free-text filter, in characters.
const MaxText = 100

const listColumns = `d.id, d.job_id, d.repository, d.pr_number, d.head_sha, d.trigger_name, d.protocol, d.decision, d.phases,
	d.prompt_tokens, d.completion_tokens, d.cost_usd, d.started_at, d.ended_at, d.consensus_level, d.escalations, d.human_decision, d.paused_after,
	d.title, d.last_phase, d.last_round, ` + statusSQL

func scanListed(row interface{ Scan(...any) error }) (*Listed, error) {
	var l Listed
	var started, ended int64
	if err := row.Scan(&l.ID, &l.JobID, &l.Repository, &l.PRNumber, &l.HeadSHA, &l.Trigger, &l.Protocol, &l.Decision, &l.Phases,
		&l.Prompt, &l.Completion, &l.CostUSD, &started, &ended, &l.ConsensusLevel, &l.Escalations, &l.HumanDecision, &l.PausedAfter,
		&l.Title, &l.LastPhase, &l.LastRound, &l.Status); err != nil {
		return nil, err
	}
	l.StartedAt, l.EndedAt = time.Unix(0, started), time.Unix(0, ended)
	return &l, nil
}

// ListDebates returns a page of debates, newest first, filtered in the database, and the cursor
// of the next page (nil on the last one).
func (s *Store) ListDebates(ctx context.Context, f ListFilter) ([]Listed, *Cursor, error) {
	if len(f.Readable) == 0 {
		return nil, nil, nil
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 50
	}
	var where []string
	var args []any
	if f.Repository != "" {
		where, args = append(where, "d.repository = ?"), append(args, f.Repository)
	}
	in := strings.TrimSuffix(strings.Repeat("?, ", len(f.Readable)), ", ")
	column := "d.repository"
	if f.Repository == "" && len(f.Readable) > 1 {
		// Over several repositories the page is read along the newest-first index, the
		// readable ones filtered as it goes; "|| ''" keeps the planner from reading each
		// repository's debates through the repository index and sorting them all (SQLite,
		// without statistics, prefers that: 13 ms instead of 2 ms for 10,000 debates).
		column = "(d.repository || '')"
	}
	where = append(where, column+" IN ("+in+")")
	for _, r := range f.Readable {
		args = append(args, r)
	}
	if f.Status != "" {
		where, args = append(where, "("+statusSQL+") = ?"), append(args, f.Status)
	}
	if cond, targs := textFilter(f.Text, "d.title", "d.repository", "d.pr_number"); cond != "" {
		where, args = append(where, cond), append(args, targs...)
	}
	if f.LatestPerPull {
		where = append(where, `NOT EXISTS (SELECT 1 FROM debates n WHERE n.repository = d.repository AND n.pr_number = d.pr_number
			AND (n.started_at > d.started_at OR (n.started_at = d.started_at AND n.id > d.id)))`)
	}
	if f.After != nil {
		// Written so that the index can seek to the cursor (a range on started_at) rather
		// than test every newer row.
		where = append(where, "d.started_at <= ? AND (d.started_at < ? OR d.id < ?)")
		args = append(args, f.After.StartedAt, f.After.StartedAt, f.After.ID)
	}
	args = append(args, limit+1)
	query := "SELECT " + listColumns + " FROM debates d LEFT JOIN jobs j ON j.id = d.job_id WHERE " + strings.Join(where, " AND ") +
		" ORDER BY d.started_at DESC, d.id DESC LIMIT ?"
	out, err := s.listRows(ctx, query, args)
	if err != nil {
		return nil, nil, err
	}
	if f.Status == "" || f.Status == StatusQueued || f.Status == StatusRunning {
		pending, err := s.pending(ctx, f, limit)
		if err != nil {
			return nil, nil, err
		}
		if len(pending) > 0 {
			out = append(out, pending...)
			sort.SliceStable(out, func(i, j int) bool {
				a, b := out[i], out[j]
				if !a.StartedAt.Equal(b.StartedAt) {
					return a.StartedAt.After(b.StartedAt)
				}
				return a.ID > b.ID
			})
		}
	}
	var next *Cursor
	if len(out) > limit {
		out = out[:limit]
		last := out[limit-1]
		next = &Cursor{StartedAt: last.StartedAt.UnixNano(), ID: last.ID}
	}
	return out, next, nil
}

func (s *Store) listRows(ctx context.Context, query string, args []any) ([]Listed, error) {
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("failed to list debates: %w", err)
	}
	defer rows.Close()
	var out []Listed
	for rows.Next() {
		l, err := scanListed(rows)
		if err != nil {
			return nil, fmt.Errorf("failed to read a listed debate: %w", err)
		}
		out = append(out, *l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("failed to list debates: %w", err)
	}
	return out, nil
}

// pending lists, as ListDebates does, the debates that have not begun: the review and design
// jobs queued or running whose debate has no row yet (a row is written when the first phase
// ends). A job that resumes a paused debate is that debate's, which is listed already. They are
// few (a backlog, and the debates in their first phase), read by the job states' index and
// merged with the page in Go.
func (s *Store) pending(ctx context.Context, f ListFilter, limit int) ([]Listed, error) {
	repo := "substr(j.pr_key, 1, instr(j.pr_key, '#') - 1)"
	number := "CAST(substr(j.pr_key, instr(j.pr_key, '#') + 1) AS INTEGER)"
	if s.dialect == "postgres" {
		repo, number = "split_part(j.pr_key, '#', 1)", "CAST(split_part(j.pr_key, '#', 2) AS INTEGER)"
	}
	id := "('job-' || j.id)"
	where := []string{"j.state IN (?, ?)", "j.kind IN ('review', 'design')", "j.dedupe_key NOT LIKE 'resume/%'",
		"NOT EXISTS (SELECT 1 FROM debates x WHERE x.job_id = j.id)"}
	args := []any{Queued, Running}
	if f.Status != "" {
		where, args = append(where, "j.state = ?"), append(args, map[string]string{StatusQueued: Queued, StatusRunning: Running}[f.Status])
	}
	if f.Repository != "" {
		where, args = append(where, repo+" = ?"), append(args, f.Repository)
	}
	// A debate not begun has no title yet: the text finds it by its repository or number.
	if cond, targs := textFilter(f.Text, "", repo, number); cond != "" {
		where, args = append(where, cond), append(args, targs...)
	}
	where = append(where, repo+" IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(f.Readable)), ", ")+")")
	for _, r := range f.Readable {
		args = append(args, r)
	}
	if f.After != nil {
		where = append(where, "j.created_at <= ? AND (j.created_at < ? OR "+id+" < ?)")
		args = append(args, f.After.StartedAt, f.After.StartedAt, f.After.ID)
	}
	args = append(args, limit+1)
	query := "SELECT " + id + ", j.id, " + repo + ", " + number + ", j.head_sha, j.kind, j.created_at, j.state FROM jobs j WHERE " +
		strings.Join(where, " AND ") + " ORDER BY j.created_at DESC, j.id DESC LIMIT ?"
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("failed to list the debates not begun: %w", err)
	}
	defer rows.Close()
	var out []Listed
	for rows.Next() {
		var l Listed
		var created int64
		if err := rows.Scan(&l.ID, &l.JobID, &l.Repository, &l.PRNumber, &l.HeadSHA, &l.Trigger, &created, &l.Status); err != nil {
			return nil, fmt.Errorf("failed to read a debate not begun: %w", err)
		}
		l.StartedAt, l.Pending = time.Unix(0, created), true
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("failed to list the debates not begun: %w", err)
	}
	return out, nil
}

// DebateStatus returns one debate as the list shows it (no checkpoint nor record), or
// ErrNotFound: what a live page polls to learn that a phase ended.
func (s *Store) DebateStatus(ctx context.Context, id string) (*Listed, error) {
	l, err := scanListed(s.db.QueryRowContext(ctx, s.q("SELECT "+listColumns+" FROM debates d LEFT JOIN jobs j ON j.id = d.job_id WHERE d.id = ?"), id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read the status of debate %s: %w", id, err)
	}
	return l, nil
}

// Repositories lists the repositories that have debates, in order.
func (s *Store) Repositories(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT DISTINCT repository FROM debates ORDER BY repository")
	if err != nil {
		return nil, fmt.Errorf("failed to list the repositories with debates: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			return nil, fmt.Errorf("failed to read a repository: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// textFilter is the condition of the list's free-text filter over the columns given (title may
// be empty): the text, cut to MaxText characters, is a plain substring of the title or the
// repository, case-insensitively, or the pull request's number ("7", "#7"). It is passed as a
// parameter, its LIKE wildcards escaped.
func textFilter(text, title, repo, number string) (string, []any) {
	text = strings.ToLower(strings.TrimSpace(ClipText(CleanText(text))))
	if text == "" {
		return "", nil
	}
	like := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(text) + "%"
	var or []string
	var args []any
	for _, col := range []string{title, repo} {
		if col != "" {
			or, args = append(or, "lower("+col+") LIKE ? ESCAPE '\\'"), append(args, like)
		}
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(text, "#")); err == nil && n > 0 {
		or, args = append(or, number+" = ?"), append(args, n)
	}
	return "(" + strings.Join(or, " OR ") + ")", args
}

// CleanText drops from a free-text filter what no title holds and a database may refuse:
// invalid UTF-8 and control characters (NUL among them).
func CleanText(text string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(text, ""))
}

// ClipText cuts a free-text filter to MaxText characters (whole runes).
func ClipText(text string) string {
	if utf8.RuneCountInString(text) <= MaxText {
		return text
	}
	return string([]rune(text)[:MaxText])
}

// progress is what the list shows of a checkpoint: the pull request's title and the last phase
// the debate completed.
type progress struct {
	Title string `json:"title"`
	Phase string `json:"-"`
	Round int    `json:"-"`
	// Timeline is the transcript's; only its last phase is kept.
	Timeline []struct {
		Phase string `json:"phase"`
		Round int    `json:"round"`
	} `json:"timeline"`
}

// progressOf reads a checkpoint's title and last phase; a checkpoint it cannot read (none yet)
// has neither.
func progressOf(checkpoint []byte) progress {
	var p progress
	if len(checkpoint) == 0 || json.Unmarshal(checkpoint, &p) != nil {
		return progress{}
	}
	if n := len(p.Timeline); n > 0 {
		p.Phase, p.Round = p.Timeline[n-1].Phase, p.Timeline[n-1].Round
	}
	p.Timeline = nil
	return p
}

// Pull is one pull request's entry in the list: a key for Pulls.
type Pull struct {
	Repository string
	Number     int
}

// Older returns, for each pull request given, its debates older than the one the list shows
// (before, by ID), newest first, at most perPull of each, and how many each has in all beyond
// the one shown. The list folds them under the pull request.
func (s *Store) Older(ctx context.Context, shown map[Pull]Listed, perPull int) (map[Pull][]Listed, map[Pull]int, error) {
	if len(shown) == 0 {
		return nil, nil, nil
	}
	if perPull <= 0 {
		perPull = 20
	}
	// One indexed read per pull request: its debates older than the one shown, newest first,
	// the first perPull of them, each with how many there are.
	before := func(t string) string {
		return "(" + t + ".started_at < ? OR (" + t + ".started_at = ? AND " + t + ".id < ?))"
	}
	query := s.q("SELECT " + listColumns + ", (SELECT COUNT(*) FROM debates n WHERE n.repository = d.repository AND n.pr_number = d.pr_number AND " + before("n") + `) AS total
		FROM debates d LEFT JOIN jobs j ON j.id = d.job_id WHERE d.repository = ? AND d.pr_number = ? AND ` + before("d") + ` ORDER BY d.started_at DESC, d.id DESC LIMIT ?`)
	stmt, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to read the earlier debates of %d pull requests: %w", len(shown), err)
	}
	defer stmt.Close()
	older, totals := map[Pull][]Listed{}, map[Pull]int{}
	for p, l := range shown {
		at := l.StartedAt.UnixNano()
		if err := s.olderOf(ctx, stmt, p, older, totals, at, at, l.ID, p.Repository, p.Number, at, at, l.ID, perPull); err != nil {
			return nil, nil, err
		}
	}
	return older, totals, nil
}

// olderOf reads one pull request's earlier debates with Older's statement.
func (s *Store) olderOf(ctx context.Context, stmt *sql.Stmt, p Pull, older map[Pull][]Listed, totals map[Pull]int, args ...any) error {
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return fmt.Errorf("failed to read the earlier debates of %s#%d: %w", p.Repository, p.Number, err)
	}
	defer rows.Close()
	for rows.Next() {
		var total int
		l, err := scanListed(scanTail{rows, []any{&total}})
		if err != nil {
			return fmt.Errorf("failed to read an earlier debate of %s#%d: %w", p.Repository, p.Number, err)
		}
		older[p], totals[p] = append(older[p], *l), total
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("failed to read the earlier debates of %s#%d: %w", p.Repository, p.Number, err)
	}
	return nil
}

// scanTail scans a row with columns after scanListed's into tail.
type scanTail struct {
	rows *sql.Rows
	tail []any
}

func (t scanTail) Scan(dest ...any) error { return t.rows.Scan(append(dest, t.tail...)...) }
