package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Failure is one failed run or check of a pull request's task (seed 000's failures.jsonl).
type Failure struct {
	// RunKey identifies the run or check and its attempt: a redelivery records nothing new.
	RunKey      string
	PR          string // "owner/repo#n"
	TaskID      string
	Attempt     int
	At          time.Time
	Fingerprint string
	Message     string
	HeadSHA     string
	Files       []string
}

// FailureTask is a task's streak of consecutive failures with one fingerprint.
type FailureTask struct {
	PR, TaskID, Task string
	// Streak counts the consecutive failures; 0 after a reset.
	Streak      int
	Fingerprint string
	LastAt      time.Time
	LastHead    string
	// Files are the files the latest failure named.
	Files []string
	// Debated is the streak's count at which a failure debate was held (0: none yet).
	Debated int
	// Escalated is set once the streak escalated (by a debate, or by a failure after one).
	Escalated bool
	// Patterns are the critics' patterns of the task's failure debates, kept across resets.
	Patterns  []string
	UpdatedAt time.Time
}

// PushCanReset reports whether a push can reset the task: it is counting failures (a push that
// changes CI's environment resets them).
func (t FailureTask) PushCanReset() bool { return t.Streak > 0 }

func joinLines(xs []string) string { return strings.Join(xs, "\n") }

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// RecordFailure appends a failure and moves its task's streak by next, in one transaction: next
// gets the task as it was (a zero task with the ids filled when there was none) and returns it
// as it is to be kept, and the failure's attempt number. A failure whose RunKey was recorded
// already changes nothing and returns recorded false.
func (s *Store) RecordFailure(ctx context.Context, f *Failure, task string, next func(FailureTask) FailureTask) (t FailureTask, recorded bool, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return t, false, fmt.Errorf("failed to record a failure of %s: %w", f.PR, err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, s.q("SELECT COUNT(*) FROM failures WHERE run_key = ?"), f.RunKey).Scan(&n); err != nil {
		return t, false, fmt.Errorf("failed to look up failure %s: %w", f.RunKey, err)
	}
	if n > 0 {
		return t, false, nil
	}
	// The row exists before it is locked, so that two failures of one task at once queue on it.
	if _, err := tx.ExecContext(ctx, s.q("INSERT INTO failure_tasks (pr_key, task_id, task) VALUES (?, ?, ?) ON CONFLICT (pr_key, task_id) DO NOTHING"), f.PR, f.TaskID, task); err != nil {
		return t, false, fmt.Errorf("failed to record task %s of %s: %w", f.TaskID, f.PR, err)
	}
	lock := ""
	if s.dialect == "postgres" {
		lock = " FOR UPDATE"
	}
	prev, err := scanTask(tx.QueryRowContext(ctx, s.q(taskColumns+" FROM failure_tasks WHERE pr_key = ? AND task_id = ?"+lock), f.PR, f.TaskID))
	if err != nil {
		return t, false, fmt.Errorf("failed to read task %s of %s: %w", f.TaskID, f.PR, err)
	}
	t = next(*prev)
	t.PR, t.TaskID, t.Task, t.UpdatedAt = f.PR, f.TaskID, task, s.now()
	f.Attempt = t.Streak
	if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO failures (run_key, pr_key, task_id, attempt, at, fingerprint, message, head_sha, files) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		f.RunKey, f.PR, f.TaskID, f.Attempt, f.At.UnixNano(), f.Fingerprint, f.Message, f.HeadSHA, joinLines(f.Files)); err != nil {
		return t, false, fmt.Errorf("failed to record failure %s: %w", f.RunKey, err)
	}
	if err := s.saveTask(ctx, tx, &t); err != nil {
		return t, false, err
	}
	if err := tx.Commit(); err != nil {
		return t, false, fmt.Errorf("failed to commit failure %s: %w", f.RunKey, err)
	}
	return t, true, nil
}

const taskColumns = "SELECT pr_key, task_id, task, streak, fingerprint, last_at, last_head, files, debated, escalated, patterns, updated_at"

func scanTask(row interface{ Scan(...any) error }) (*FailureTask, error) {
	var t FailureTask
	var last, updated int64
	var files, patterns string
	var escalated int
	if err := row.Scan(&t.PR, &t.TaskID, &t.Task, &t.Streak, &t.Fingerprint, &last, &t.LastHead, &files, &t.Debated, &escalated, &patterns, &updated); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	if last != 0 {
		t.LastAt = time.Unix(0, last)
	}
	t.UpdatedAt = time.Unix(0, updated)
	t.Files, t.Patterns, t.Escalated = splitLines(files), splitLines(patterns), escalated != 0
	return &t, nil
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func (s *Store) saveTask(ctx context.Context, db execer, t *FailureTask) error {
	var last int64
	if !t.LastAt.IsZero() {
		last = t.LastAt.UnixNano()
	}
	escalated := 0
	if t.Escalated {
		escalated = 1
	}
	_, err := db.ExecContext(ctx, s.q(`UPDATE failure_tasks SET task = ?, streak = ?, fingerprint = ?, last_at = ?, last_head = ?, files = ?, debated = ?, escalated = ?, patterns = ?, updated_at = ?
		WHERE pr_key = ? AND task_id = ?`), t.Task, t.Streak, t.Fingerprint, last, t.LastHead, joinLines(t.Files), t.Debated, escalated, joinLines(t.Patterns), s.now().UnixNano(), t.PR, t.TaskID)
	if err != nil {
		return fmt.Errorf("failed to save task %s of %s: %w", t.TaskID, t.PR, err)
	}
	return nil
}

// UpdateTask rewrites a task's streak (a debate held, an escalation).
func (s *Store) UpdateTask(ctx context.Context, t *FailureTask) error {
	return s.saveTask(ctx, s.db, t)
}

// FailureTasks lists a pull request's tasks.
func (s *Store) FailureTasks(ctx context.Context, pr string) ([]FailureTask, error) {
	rows, err := s.db.QueryContext(ctx, s.q(taskColumns+" FROM failure_tasks WHERE pr_key = ? ORDER BY task_id"), pr)
	if err != nil {
		return nil, fmt.Errorf("failed to list the failing tasks of %s: %w", pr, err)
	}
	defer rows.Close()
	var out []FailureTask
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, fmt.Errorf("failed to read a failing task of %s: %w", pr, err)
		}
		out = append(out, *t)
	}
	return out, rows.Err()
}

// FailureTaskOf reads one task, or ErrNotFound.
func (s *Store) FailureTaskOf(ctx context.Context, pr, taskID string) (*FailureTask, error) {
	t, err := scanTask(s.db.QueryRowContext(ctx, s.q(taskColumns+" FROM failure_tasks WHERE pr_key = ? AND task_id = ?"), pr, taskID))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("failed to read task %s of %s: %w", taskID, pr, err)
	}
	return t, err
}

// ResetTask ends a task's streak (a success, a push changing CI's environment, /debate fresh):
// the next failure is attempt 1 again. It reports whether there was a streak to end.
func (s *Store) ResetTask(ctx context.Context, pr, taskID string) (bool, error) {
	res, err := s.db.ExecContext(ctx, s.q("UPDATE failure_tasks SET streak = 0, debated = 0, escalated = 0, updated_at = ? WHERE pr_key = ? AND task_id = ? AND streak > 0"),
		s.now().UnixNano(), pr, taskID)
	if err != nil {
		return false, fmt.Errorf("failed to reset task %s of %s: %w", taskID, pr, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// LastFailures returns a task's latest n failures, oldest first.
func (s *Store) LastFailures(ctx context.Context, pr, taskID string, n int) ([]Failure, error) {
	rows, err := s.db.QueryContext(ctx, s.q("SELECT run_key, attempt, at, fingerprint, message, head_sha, files FROM failures WHERE pr_key = ? AND task_id = ? ORDER BY id DESC LIMIT ?"), pr, taskID, n)
	if err != nil {
		return nil, fmt.Errorf("failed to read the failures of task %s of %s: %w", taskID, pr, err)
	}
	defer rows.Close()
	var out []Failure
	for rows.Next() {
		f := Failure{PR: pr, TaskID: taskID}
		var at int64
		var files string
		if err := rows.Scan(&f.RunKey, &f.Attempt, &at, &f.Fingerprint, &f.Message, &f.HeadSHA, &files); err != nil {
			return nil, fmt.Errorf("failed to read a failure of task %s of %s: %w", taskID, pr, err)
		}
		f.At, f.Files = time.Unix(0, at), splitLines(files)
		out = append([]Failure{f}, out...)
	}
	return out, rows.Err()
}

// DialecticDebate is a failure or planning debate as the metrics count it.
type DialecticDebate struct {
	ID, Type, PR, TaskID, HeadSHA, Resolution, Agents string
	At                                                time.Time
	// Outcome is the task's next run after the debate ("success" or "failure"), empty until it
	// runs; Helped says the next run succeeded on a new commit (the advice was followed and
	// worked); Needless says it succeeded on the same commit (the failure was flaky: the debate
	// was not needed).
	Outcome          string
	Helped, Needless bool
	Record           []byte
}

// SaveDialecticDebate keeps a failure or planning debate (the same id twice: the latest).
func (s *Store) SaveDialecticDebate(ctx context.Context, d *DialecticDebate) error {
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO dialectic_debates (id, type, pr_key, task_id, head_sha, resolution, agents, at, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET resolution = excluded.resolution, agents = excluded.agents, at = excluded.at, record = excluded.record`),
		d.ID, d.Type, d.PR, d.TaskID, d.HeadSHA, d.Resolution, d.Agents, d.At.UnixNano(), d.Record)
	if err != nil {
		return fmt.Errorf("failed to store debate %s: %w", d.ID, err)
	}
	return nil
}

// DebateOutcome records the next run of a task after its latest failure debate that has no
// outcome yet: success on another commit than the debated one helped, success on the same commit
// means the debate was not needed.
func (s *Store) DebateOutcome(ctx context.Context, pr, taskID, head string, success bool) error {
	var id, debatedHead string
	err := s.db.QueryRowContext(ctx, s.q("SELECT id, head_sha FROM dialectic_debates WHERE pr_key = ? AND task_id = ? AND type = 'failure' AND outcome = '' ORDER BY at DESC LIMIT 1"), pr, taskID).Scan(&id, &debatedHead)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("failed to find the debate of task %s of %s: %w", taskID, pr, err)
	}
	outcome, helped, needless := "failure", 0, 0
	if success {
		outcome = "success"
		if head != "" && head == debatedHead {
			needless = 1
		} else {
			helped = 1
		}
	}
	if _, err := s.db.ExecContext(ctx, s.q("UPDATE dialectic_debates SET outcome = ?, helped = ?, needless = ? WHERE id = ?"), outcome, helped, needless, id); err != nil {
		return fmt.Errorf("failed to record the outcome of debate %s: %w", id, err)
	}
	return nil
}

// DialecticDebates lists the failure and planning debates, oldest first, without records.
func (s *Store) DialecticDebates(ctx context.Context) ([]DialecticDebate, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT id, type, pr_key, task_id, head_sha, resolution, agents, at, outcome, helped, needless FROM dialectic_debates ORDER BY at, id")
	if err != nil {
		return nil, fmt.Errorf("failed to list failure and planning debates: %w", err)
	}
	defer rows.Close()
	var out []DialecticDebate
	for rows.Next() {
		var d DialecticDebate
		var at int64
		var helped, needless int
		if err := rows.Scan(&d.ID, &d.Type, &d.PR, &d.TaskID, &d.HeadSHA, &d.Resolution, &d.Agents, &at, &d.Outcome, &helped, &needless); err != nil {
			return nil, fmt.Errorf("failed to read a failure or planning debate: %w", err)
		}
		d.At, d.Helped, d.Needless = time.Unix(0, at), helped != 0, needless != 0
		out = append(out, d)
	}
	return out, rows.Err()
}

// DialecticStats are seed 000's metrics of failure and planning debates.
type DialecticStats struct {
	// ByType counts debates by type ("failure", "planning") and resolution.
	ByType map[string]map[string]int `json:"by_type"`
	// WithOutcome counts the failure debates whose task ran again; Helped those whose next run
	// succeeded on a new commit; Needless those whose next run succeeded on the same commit (a
	// flaky failure: the debate was not needed).
	WithOutcome int `json:"with_outcome"`
	Helped      int `json:"helped"`
	Needless    int `json:"needless"`
	// HelpedRate is Helped / WithOutcome; FalsePositiveRate is Needless / WithOutcome.
	HelpedRate        float64 `json:"helped_rate"`
	FalsePositiveRate float64 `json:"false_positive_rate"`
}

func (s *Store) dialecticStats(ctx context.Context) (DialecticStats, error) {
	st := DialecticStats{ByType: map[string]map[string]int{}}
	ds, err := s.DialecticDebates(ctx)
	if err != nil {
		return st, err
	}
	for _, d := range ds {
		if st.ByType[d.Type] == nil {
			st.ByType[d.Type] = map[string]int{}
		}
		st.ByType[d.Type][d.Resolution]++
		if d.Outcome == "" {
			continue
		}
		st.WithOutcome++
		if d.Helped {
			st.Helped++
		}
		if d.Needless {
			st.Needless++
		}
	}
	if st.WithOutcome > 0 {
		st.HelpedRate = float64(st.Helped) / float64(st.WithOutcome)
		st.FalsePositiveRate = float64(st.Needless) / float64(st.WithOutcome)
	}
	return st, nil
}

func (s *Store) dialecticDebate(ctx context.Context, tail string, args ...any) (*DialecticDebate, error) {
	var d DialecticDebate
	var at int64
	var helped, needless int
	err := s.db.QueryRowContext(ctx, s.q("SELECT id, type, pr_key, task_id, head_sha, resolution, agents, at, outcome, helped, needless, record FROM dialectic_debates "+tail), args...).
		Scan(&d.ID, &d.Type, &d.PR, &d.TaskID, &d.HeadSHA, &d.Resolution, &d.Agents, &at, &d.Outcome, &helped, &needless, &d.Record)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read a failure or planning debate: %w", err)
	}
	d.At, d.Helped, d.Needless = time.Unix(0, at), helped != 0, needless != 0
	return &d, nil
}

// DialecticDebateByID reads a failure or planning debate with its record, or ErrNotFound.
func (s *Store) DialecticDebateByID(ctx context.Context, id string) (*DialecticDebate, error) {
	return s.dialecticDebate(ctx, "WHERE id = ?", id)
}

// LatestDialecticDebate reads a task's latest failure debate or escalation, or ErrNotFound.
func (s *Store) LatestDialecticDebate(ctx context.Context, pr, taskID string) (*DialecticDebate, error) {
	return s.dialecticDebate(ctx, "WHERE pr_key = ? AND task_id = ? AND type IN ('failure', 'escalation') ORDER BY at DESC, id DESC LIMIT 1", pr, taskID)
}

// FailureRecorded reports whether a failure of this run key is recorded.
func (s *Store) FailureRecorded(ctx context.Context, runKey string) (bool, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, s.q("SELECT COUNT(*) FROM failures WHERE run_key = ?"), runKey).Scan(&n); err != nil {
		return false, fmt.Errorf("failed to look up failure %s: %w", runKey, err)
	}
	return n > 0, nil
}

// FailureByKey reads a failure, or ErrNotFound.
func (s *Store) FailureByKey(ctx context.Context, runKey string) (*Failure, error) {
	f := Failure{RunKey: runKey}
	var at int64
	var files string
	err := s.db.QueryRowContext(ctx, s.q("SELECT pr_key, task_id, attempt, at, fingerprint, message, head_sha, files FROM failures WHERE run_key = ?"), runKey).
		Scan(&f.PR, &f.TaskID, &f.Attempt, &at, &f.Fingerprint, &f.Message, &f.HeadSHA, &files)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read failure %s: %w", runKey, err)
	}
	f.At, f.Files = time.Unix(0, at), splitLines(files)
	return &f, nil
}

// TaskDebated records what a task's failure debate concluded: the critic's pattern joins the
// task's patterns (kept across resets, so that a later debate sees it repeat), and an ESCALATE
// marks the streak escalated. Only these columns change, so that a failure recorded meanwhile
// keeps its count.
func (s *Store) TaskDebated(ctx context.Context, pr, taskID, pattern string, escalated bool) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("failed to record the debate of task %s of %s: %w", taskID, pr, err)
	}
	defer tx.Rollback()
	lock := ""
	if s.dialect == "postgres" {
		lock = " FOR UPDATE"
	}
	var patterns string
	if err := tx.QueryRowContext(ctx, s.q("SELECT patterns FROM failure_tasks WHERE pr_key = ? AND task_id = ?"+lock), pr, taskID).Scan(&patterns); err != nil {
		return fmt.Errorf("failed to read task %s of %s: %w", taskID, pr, err)
	}
	list := splitLines(patterns)
	pattern = strings.Join(strings.Fields(pattern), " ")
	if pattern != "" && !slices.Contains(list, pattern) {
		list = append(list, pattern)
	}
	q := "UPDATE failure_tasks SET patterns = ?, updated_at = ? WHERE pr_key = ? AND task_id = ?"
	if escalated {
		q = "UPDATE failure_tasks SET patterns = ?, updated_at = ?, escalated = 1 WHERE pr_key = ? AND task_id = ?"
	}
	if _, err := tx.ExecContext(ctx, s.q(q), joinLines(list), s.now().UnixNano(), pr, taskID); err != nil {
		return fmt.Errorf("failed to record the debate of task %s of %s: %w", taskID, pr, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("failed to record the debate of task %s of %s: %w", taskID, pr, err)
	}
	return nil
}
