// Package store keeps what must survive a crash: deliveries seen, jobs with their leases,
// debates with a checkpoint after every phase, the bot's comment and check-run ids, and trust per
// agent and repository. One implementation over database/sql serves two backends: SQLite
// (modernc.org/sqlite, pure Go, the default) and PostgreSQL (pgx) for several replicas.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
	_ "modernc.org/sqlite"             // the "sqlite" driver
)

//go:embed migrations
var migrations embed.FS

// Job states.
const (
	Queued     = "queued"
	Running    = "running"
	Done       = "done"
	Failed     = "failed"
	Superseded = "superseded"
)

// Job is a debate to hold, as the store keeps it.
type Job struct {
	ID         int64
	DeliveryID string
	// Key dedupes jobs: the same key twice is one job.
	Key string
	// PR is "owner/repo#n": a newer head of it supersedes queued jobs of older heads.
	PR         string
	HeadSHA    string
	Kind       string
	Payload    []byte
	State      string
	Attempts   int
	LeaseOwner string
	LeaseUntil time.Time
	RunAfter   time.Time
	Error      string
	// Priority orders claims: a job of higher priority is claimed before older ones (commands
	// that stop or decide a debate do not wait behind a queue of debates).
	Priority int
	// Cancel is the cause a stop was requested with (CancelHumanReview), or empty: a flag in the
	// store, so that the worker holding the job sees it on whichever replica it runs, and a job
	// not yet claimed sees it when it is.
	Cancel string
}

// CancelHumanReview is the Cancel of a job whose debate /human-review stopped.
const CancelHumanReview = "human_review"

// Errors of the store.
var (
	ErrLeaseLost = errors.New("the job's lease belongs to another worker")
	ErrNotFound  = errors.New("not found")
)

// Store is the database.
type Store struct {
	db      *sql.DB
	dialect string // "sqlite" or "postgres"
	now     func() time.Time
	// batch feeds SQLite's group commit; nil on PostgreSQL.
	batch       chan *enqueueReq
	closed      chan struct{}
	batcherDone chan struct{}
	closeOnce   sync.Once
}

// Open connects to url ("sqlite:PATH", "sqlite::memory:" or "postgres://...") and applies the
// embedded migrations.
func Open(ctx context.Context, url string) (*Store, error) {
	var s *Store
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		path := strings.TrimPrefix(url, "sqlite:")
		if path == "" {
			return nil, fmt.Errorf("database url %q names no file (want sqlite:PATH)", url)
		}
		// WAL with synchronous=NORMAL: a committed delivery survives the process being killed
		// (kill -9); only an operating-system crash or power loss can take the last commits.
		// Use PostgreSQL where that matters.
		dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate"
		if path == ":memory:" {
			dsn = "file::memory:?_pragma=busy_timeout(10000)"
		}
		db, err := sql.Open("sqlite", dsn)
		if err != nil {
			return nil, fmt.Errorf("failed to open SQLite database %s: %w", path, err)
		}
		// One connection: SQLite has one writer, and a single connection serialises transactions
		// without "database is locked".
		db.SetMaxOpenConns(1)
		s = &Store{db: db, dialect: "sqlite"}
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		db, err := sql.Open("pgx", url)
		if err != nil {
			return nil, fmt.Errorf("failed to open PostgreSQL database: %w", err)
		}
		db.SetMaxOpenConns(20)
		db.SetConnMaxIdleTime(5 * time.Minute)
		s = &Store{db: db, dialect: "postgres"}
	default:
		return nil, fmt.Errorf("unsupported database url %q (want sqlite:PATH or postgres://...)", redact(url))
	}
	s.now = time.Now
	if err := s.db.PingContext(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("database %s is unavailable: %w", redact(url), err)
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	s.closed = make(chan struct{})
	if s.dialect == "sqlite" {
		s.batch, s.batcherDone = make(chan *enqueueReq, maxBatch), make(chan struct{})
		go s.batcher()
	}
	return s, nil
}

// redact hides a password in a database url.
func redact(url string) string {
	if i := strings.Index(url, "://"); i >= 0 {
		if j := strings.Index(url[i+3:], "@"); j >= 0 {
			return url[:i+3] + "***" + url[i+3+j:]
		}
	}
	return url
}

// Close stops the group commit and closes the database.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.closed)
		if s.batcherDone != nil {
			<-s.batcherDone
		}
	})
	return s.db.Close()
}

// Dialect is "sqlite" or "postgres".
func (s *Store) Dialect() string { return s.dialect }

// q rewrites ? placeholders to $n for PostgreSQL.
func (s *Store) q(query string) string {
	if s.dialect != "postgres" {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (s *Store) migrate(ctx context.Context) error {
	dir := "migrations/" + s.dialect
	entries, err := fs.ReadDir(migrations, dir)
	if err != nil {
		return fmt.Errorf("failed to read migrations: %w", err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("failed to migrate: %w", err)
	}
	defer tx.Rollback()
	if s.dialect == "postgres" {
		// Replicas starting together migrate one at a time.
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(7301996)"); err != nil {
			return fmt.Errorf("failed to lock migrations: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)"); err != nil {
		return fmt.Errorf("failed to create schema_migrations: %w", err)
	}
	for _, e := range entries {
		version, err := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s has no version number", e.Name())
		}
		var n int
		if err := tx.QueryRowContext(ctx, s.q("SELECT COUNT(*) FROM schema_migrations WHERE version = ?"), version).Scan(&n); err != nil {
			return fmt.Errorf("failed to read schema_migrations: %w", err)
		}
		if n > 0 {
			continue
		}
		body, err := fs.ReadFile(migrations, dir+"/"+e.Name())
		if err != nil {
			return err
		}
		for _, stmt := range strings.Split(string(body), ";") {
			if strings.TrimSpace(stmt) == "" {
				continue
			}
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("migration %s failed: %w", e.Name(), err)
			}
		}
		if _, err := tx.ExecContext(ctx, s.q("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)"), version, s.now().UnixNano()); err != nil {
			return fmt.Errorf("failed to record migration %s: %w", e.Name(), err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("failed to commit migrations: %w", err)
	}
	return nil
}

// Version is the schema version applied.
func (s *Store) Version(ctx context.Context) (int, error) {
	var v sql.NullInt64
	if err := s.db.QueryRowContext(ctx, "SELECT MAX(version) FROM schema_migrations").Scan(&v); err != nil {
		return 0, fmt.Errorf("failed to read the schema version: %w", err)
	}
	return int(v.Int64), nil
}

// Enqueued says what Enqueue did.
type Enqueued struct {
	Accepted bool
	JobID    int64
	// Reason is why a job was not created ("duplicate delivery", "duplicate job").
	Reason string
	// Superseded counts queued jobs of older heads of the same pull request that were dropped.
	Superseded int
}

// Enqueue records the delivery and its job, committed before it returns: the same delivery
// twice, or the same job key twice, is one job; a job for a new head supersedes the queued and
// running jobs of the same pull request's older heads. On SQLite, concurrent calls are committed
// together in one transaction (group commit), since SQLite has a single writer.
func (s *Store) Enqueue(ctx context.Context, deliveryID, event string, j *Job) (Enqueued, error) {
	if s.batch == nil {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return Enqueued{}, fmt.Errorf("failed to enqueue delivery %s: %w", deliveryID, err)
		}
		defer tx.Rollback()
		out, err := s.enqueueTx(ctx, tx, deliveryID, event, j)
		if err != nil {
			return Enqueued{}, err
		}
		if err := tx.Commit(); err != nil {
			return Enqueued{}, fmt.Errorf("failed to commit delivery %s: %w", deliveryID, err)
		}
		return out, nil
	}
	req := &enqueueReq{ctx: ctx, deliveryID: deliveryID, event: event, job: j, done: make(chan struct{})}
	select {
	case s.batch <- req:
	case <-ctx.Done():
		return Enqueued{}, fmt.Errorf("failed to enqueue delivery %s: %w", deliveryID, ctx.Err())
	case <-s.closed:
		return Enqueued{}, fmt.Errorf("failed to enqueue delivery %s: the store is closed", deliveryID)
	}
	<-req.done
	return req.out, req.err
}

type enqueueReq struct {
	ctx               context.Context
	deliveryID, event string
	job               *Job
	out               Enqueued
	err               error
	done              chan struct{}
}

// maxBatch bounds one group commit.
const maxBatch = 128

// batcher commits queued Enqueue calls together: it takes one, then whatever else is waiting.
func (s *Store) batcher() {
	defer close(s.batcherDone)
	for {
		var first *enqueueReq
		select {
		case first = <-s.batch:
		case <-s.closed:
			return
		}
		reqs := []*enqueueReq{first}
	more:
		for len(reqs) < maxBatch {
			select {
			case r := <-s.batch:
				reqs = append(reqs, r)
			default:
				break more
			}
		}
		s.commitBatch(reqs)
	}
}

func (s *Store) commitBatch(reqs []*enqueueReq) {
	finish := func(err error) {
		for _, r := range reqs {
			if err != nil {
				r.out, r.err = Enqueued{}, err
			}
			close(r.done)
		}
	}
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		finish(fmt.Errorf("failed to enqueue %d deliveries: %w", len(reqs), err))
		return
	}
	defer tx.Rollback()
	for _, r := range reqs {
		if r.ctx.Err() != nil {
			// The caller gave up (its webhook timed out): GitHub will redeliver; keep nothing.
			r.err = fmt.Errorf("failed to enqueue delivery %s: %w", r.deliveryID, r.ctx.Err())
			continue
		}
		if r.out, r.err = s.enqueueTx(ctx, tx, r.deliveryID, r.event, r.job); r.err != nil {
			finish(r.err)
			return
		}
	}
	if err := tx.Commit(); err != nil {
		finish(fmt.Errorf("failed to commit %d deliveries: %w", len(reqs), err))
		return
	}
	finish(nil)
}

// enqueueTx does Enqueue's work inside tx.
func (s *Store) enqueueTx(ctx context.Context, tx *sql.Tx, deliveryID, event string, j *Job) (Enqueued, error) {
	now := s.now().UnixNano()
	res, err := tx.ExecContext(ctx, s.q("INSERT INTO deliveries (id, event, received_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING"), deliveryID, event, now)
	if err != nil {
		return Enqueued{}, fmt.Errorf("failed to record delivery %s: %w", deliveryID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Enqueued{Reason: "duplicate delivery"}, nil
	}
	out := Enqueued{}
	if j == nil {
		return out, nil
	}
	var id int64
	err = tx.QueryRowContext(ctx, s.q(`INSERT INTO jobs (delivery_id, dedupe_key, pr_key, head_sha, kind, payload, state, run_after, created_at, updated_at, priority)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dedupe_key) DO NOTHING RETURNING id`),
		deliveryID, j.Key, j.PR, j.HeadSHA, j.Kind, j.Payload, Queued, now, now, now, j.Priority).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		out.Reason = "duplicate job"
		return out, nil
	case err != nil:
		return Enqueued{}, fmt.Errorf("failed to record the job of delivery %s: %w", deliveryID, err)
	}
	out.Accepted, out.JobID = true, id
	j.ID = id
	if j.HeadSHA != "" {
		// Running jobs too: their workers learn it at their next heartbeat.
		res, err := tx.ExecContext(ctx, s.q(`UPDATE jobs SET state = ?, updated_at = ? WHERE pr_key = ? AND state IN (?, ?) AND head_sha <> '' AND head_sha <> ? AND id <> ?`),
			Superseded, now, j.PR, Queued, Running, j.HeadSHA, id)
		if err != nil {
			return Enqueued{}, fmt.Errorf("failed to supersede older jobs of %s: %w", j.PR, err)
		}
		n, _ := res.RowsAffected()
		out.Superseded = int(n)
	}
	return out, nil
}

// Delivered reports whether a delivery was recorded.
func (s *Store) Delivered(ctx context.Context, id string) (bool, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, s.q("SELECT COUNT(*) FROM deliveries WHERE id = ?"), id).Scan(&n); err != nil {
		return false, fmt.Errorf("failed to look up delivery %s: %w", id, err)
	}
	return n > 0, nil
}

const jobColumns = "id, delivery_id, dedupe_key, pr_key, head_sha, kind, payload, state, attempts, lease_owner, lease_until, run_after, error, cancel, priority"

func scanJob(row interface{ Scan(...any) error }) (*Job, error) {
	var j Job
	var leaseUntil, runAfter int64
	if err := row.Scan(&j.ID, &j.DeliveryID, &j.Key, &j.PR, &j.HeadSHA, &j.Kind, &j.Payload, &j.State, &j.Attempts, &j.LeaseOwner, &leaseUntil, &runAfter, &j.Error, &j.Cancel, &j.Priority); err != nil {
		return nil, err
	}
	j.LeaseUntil, j.RunAfter = time.Unix(0, leaseUntil), time.Unix(0, runAfter)
	return &j, nil
}

// Claim leases the oldest job that is due (queued and past its retry time, or running under an
// expired lease of a dead worker) to owner, or returns nil when none is. Every claim counts as an
// attempt, a lease taken over from a dead worker too. Claim puts no bound on the attempts: the
// queue claims with ClaimCapped. On PostgreSQL, FOR UPDATE SKIP LOCKED lets replicas claim
// concurrently without waiting on each other.
func (s *Store) Claim(ctx context.Context, owner string, lease time.Duration) (*Job, error) {
	return s.claim(ctx, owner, lease, 0)
}

// AbandonedPrefix starts the error of a job that ClaimCapped failed because its workers kept
// stopping while they held it.
const AbandonedPrefix = "abandoned: "

// ClaimCapped is Claim bounded by maxAttempts, whatever way the job's workers ended: a running
// job whose lease lapsed after maxAttempts claims (each worker that held it died: a crash, a
// kill, a lost lease) is not run again but marked failed, its error saying how often it was
// abandoned (AbandonedPrefix), and returned in abandoned, to this caller only, so that it is
// reported once. A queued job is claimed as Claim does: Fail bounds the attempts that ended in
// an error. maxAttempts 0 sets no bound.
func (s *Store) ClaimCapped(ctx context.Context, owner string, lease time.Duration, maxAttempts int) (j *Job, abandoned []*Job, err error) {
	if maxAttempts > 0 {
		if abandoned, err = s.abandon(ctx, maxAttempts); err != nil {
			return nil, nil, err
		}
	}
	j, err = s.claim(ctx, owner, lease, maxAttempts)
	return j, abandoned, err
}

// abandon fails the running jobs whose lease lapsed after maxAttempts claims. On PostgreSQL a
// replica doing the same waits for the row and finds it failed: each job is returned once.
func (s *Store) abandon(ctx context.Context, maxAttempts int) ([]*Job, error) {
	now := s.now().UnixNano()
	rows, err := s.db.QueryContext(ctx, s.q(`UPDATE jobs SET state = ?, lease_owner = '', updated_at = ?,
		error = CAST(? AS TEXT) || CAST(attempts AS TEXT) || CAST(? AS TEXT)
		WHERE state = ? AND lease_until < ? AND attempts >= ?
		RETURNING `+jobColumns),
		Failed, now, AbandonedPrefix+"the worker stopped ", " times while holding this job", Running, now, maxAttempts)
	if err != nil {
		return nil, fmt.Errorf("failed to fail the abandoned jobs: %w", err)
	}
	defer rows.Close()
	var out []*Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("failed to read an abandoned job: %w", err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("failed to read the abandoned jobs: %w", err)
	}
	return out, nil
}

func (s *Store) claim(ctx context.Context, owner string, lease time.Duration, maxAttempts int) (*Job, error) {
	now := s.now()
	lock, capped := "", ""
	if s.dialect == "postgres" {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	if maxAttempts > 0 {
		// A lease that lapsed between abandon and here is abandoned at the next claim.
		capped = " AND attempts < " + strconv.Itoa(maxAttempts)
	}
	query := s.q(`UPDATE jobs SET state = ?, lease_owner = ?, lease_until = ?, attempts = attempts + 1, updated_at = ?
		WHERE id = (SELECT id FROM jobs WHERE (state = ? AND run_after <= ?) OR (state = ? AND lease_until < ?` + capped + `) ORDER BY priority DESC, id LIMIT 1` + lock + `)
		RETURNING ` + jobColumns)
	j, err := scanJob(s.db.QueryRowContext(ctx, query, Running, owner, now.Add(lease).UnixNano(), now.UnixNano(), Queued, now.UnixNano(), Running, now.UnixNano()))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("failed to claim a job for %s: %w", owner, err)
	}
	return j, nil
}

// Heartbeat extends the lease of a running job; ErrLeaseLost when another worker took it over
// (this worker was presumed dead) or it was superseded.
func (s *Store) Heartbeat(ctx context.Context, id int64, owner string, lease time.Duration) error {
	_, err := s.Beat(ctx, id, owner, lease)
	return err
}

// Beat is Heartbeat that also returns the stop requested for the job (its Cancel), so that a
// worker learns of /human-review at its next heartbeat, on whichever replica it was asked.
func (s *Store) Beat(ctx context.Context, id int64, owner string, lease time.Duration) (cancel string, err error) {
	now := s.now()
	err = s.db.QueryRowContext(ctx, s.q("UPDATE jobs SET lease_until = ?, updated_at = ? WHERE id = ? AND lease_owner = ? AND state = ? RETURNING cancel"),
		now.Add(lease).UnixNano(), now.UnixNano(), id, owner, Running).Scan(&cancel)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrLeaseLost
	}
	if err != nil {
		return "", fmt.Errorf("failed to extend the lease of job %d: %w", id, err)
	}
	return cancel, nil
}

// RequestCancel flags the queued and running jobs of a kind on a pull request with a stop cause;
// their workers see it at their next heartbeat or phase boundary, and a queued job when it is
// claimed. It returns how many jobs were flagged.
func (s *Store) RequestCancel(ctx context.Context, pr, kind, cause string) (int, error) {
	res, err := s.db.ExecContext(ctx, s.q("UPDATE jobs SET cancel = ?, updated_at = ? WHERE pr_key = ? AND kind = ? AND state IN (?, ?) AND cancel = ''"),
		cause, s.now().UnixNano(), pr, kind, Queued, Running)
	if err != nil {
		return 0, fmt.Errorf("failed to request a stop of the debates of %s: %w", pr, err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// StartCommand counts a debate started by a command against the pull request's hourly bound:
// it reports false when limit debates were started on pr within window before now. The same
// jobKey twice (a retried job) is counted once and allowed again. The count and the insert are
// one statement, so that replicas sharing the database cannot both take the last place; only a
// refused insert asks whether the job was counted before.
func (s *Store) StartCommand(ctx context.Context, pr, jobKey string, limit int, window time.Duration) (bool, error) {
	now := s.now()
	res, err := s.db.ExecContext(ctx, s.q(`INSERT INTO command_starts (job_key, pr_key, started_at)
		SELECT ?, ?, ? WHERE (SELECT COUNT(*) FROM command_starts WHERE pr_key = ? AND started_at > ?) < ?
		ON CONFLICT (job_key) DO NOTHING`), jobKey, pr, now.UnixNano(), pr, now.Add(-window).UnixNano(), limit)
	if err != nil {
		return false, fmt.Errorf("failed to count a command debate of %s: %w", pr, err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return true, nil
	}
	var n int
	if err := s.db.QueryRowContext(ctx, s.q("SELECT COUNT(*) FROM command_starts WHERE job_key = ?"), jobKey).Scan(&n); err != nil {
		return false, fmt.Errorf("failed to read the command debates of %s: %w", pr, err)
	}
	return n > 0, nil
}

// Complete marks a running job done.
func (s *Store) Complete(ctx context.Context, id int64, owner string) error {
	return s.finish(ctx, id, owner, Done, "")
}

func (s *Store) finish(ctx context.Context, id int64, owner, state, msg string) error {
	res, err := s.db.ExecContext(ctx, s.q("UPDATE jobs SET state = ?, error = ?, lease_owner = '', updated_at = ? WHERE id = ? AND lease_owner = ? AND state = ?"),
		state, msg, s.now().UnixNano(), id, owner, Running)
	if err != nil {
		return fmt.Errorf("failed to mark job %d %s: %w", id, state, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrLeaseLost
	}
	return nil
}

// Fail records a failed attempt: the job is queued again after backoff (attempt n waits
// base x 2^(n-1)), or, once it has had maxAttempts, marked failed with its error. final reports
// the latter.
func (s *Store) Fail(ctx context.Context, j *Job, owner string, cause error, base time.Duration, maxAttempts int) (final bool, err error) {
	msg := cause.Error()
	if j.Attempts >= maxAttempts {
		return true, s.finish(ctx, j.ID, owner, Failed, msg)
	}
	backoff := base << (j.Attempts - 1)
	now := s.now()
	res, err := s.db.ExecContext(ctx, s.q("UPDATE jobs SET state = ?, error = ?, lease_owner = '', run_after = ?, updated_at = ? WHERE id = ? AND lease_owner = ? AND state = ?"),
		Queued, msg, now.Add(backoff).UnixNano(), now.UnixNano(), j.ID, owner, Running)
	if err != nil {
		return false, fmt.Errorf("failed to requeue job %d: %w", j.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, ErrLeaseLost
	}
	return false, nil
}

// Release gives back a running job this worker stopped without an outcome (a shutdown): it is
// queued again at once, and the attempt it was claimed for is not counted, since the job did
// not end it. ErrLeaseLost when the job is no longer this worker's.
func (s *Store) Release(ctx context.Context, id int64, owner string) error {
	now := s.now().UnixNano()
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE jobs SET state = ?, lease_owner = '', lease_until = 0, run_after = ?, updated_at = ?,
		attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END WHERE id = ? AND lease_owner = ? AND state = ?`),
		Queued, now, now, id, owner, Running)
	if err != nil {
		return fmt.Errorf("failed to release job %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrLeaseLost
	}
	return nil
}

// Job reads one job.
func (s *Store) Job(ctx context.Context, id int64) (*Job, error) {
	j, err := scanJob(s.db.QueryRowContext(ctx, s.q("SELECT "+jobColumns+" FROM jobs WHERE id = ?"), id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read job %d: %w", id, err)
	}
	return j, nil
}

// Counts returns how many jobs are in each state.
func (s *Store) Counts(ctx context.Context) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT state, COUNT(*) FROM jobs GROUP BY state")
	if err != nil {
		return nil, fmt.Errorf("failed to count jobs: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return nil, err
		}
		out[state] = n
	}
	return out, rows.Err()
}

// Debate is a debate's row: its identity, its last checkpoint and, once decided, its record.
type Debate struct {
	ID         string
	JobID      int64
	Repository string
	PRNumber   int
	HeadSHA    string
	Trigger    string
	Protocol   string
	Decision   string
	// Phases counts the phases the checkpoint holds.
	Phases     int
	Checkpoint []byte
	Record     []byte
	Prompt     int64
	Completion int64
	// CostUSD is the debate's estimated model cost, when a model was used.
	CostUSD   float64
	StartedAt time.Time
	EndedAt   time.Time
	// ConsensusLevel and Escalations (comma-separated reasons) are the decision's; Votes is
	// "agent=vote" comma-separated.
	ConsensusLevel string
	Escalations    string
	Votes          string
	// HumanDecision is "pending" after /human-review, then the human's decision.
	HumanDecision string
	// Source is what a local debate was started from (JSON of the command line's choosing), for
	// `debate --resume`; empty for the App's debates. Read by Debate only.
	Source []byte
	// Title is the pull request's title, and LastPhase and LastRound the last phase the
	// checkpoint holds: SaveCheckpoint and FinishDebate read them from the checkpoint, for the
	// dashboard's list.
	Title     string
	LastPhase string
	LastRound int
}

// BeginDebate starts a debate afresh under its id: a debate run again from the start (a local
// debate repeated on the same change) forgets what an earlier run of the same id left, so that
// its checkpoints, decision and record are never a mix of two runs.
func (s *Store) BeginDebate(ctx context.Context, d *Debate) error {
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO debates (id, job_id, repository, pr_number, head_sha, trigger_name, protocol, phases, started_at, source)
		VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
		ON CONFLICT (id) DO UPDATE SET job_id = excluded.job_id, repository = excluded.repository, pr_number = excluded.pr_number, head_sha = excluded.head_sha,
			trigger_name = excluded.trigger_name, protocol = excluded.protocol, decision = '', phases = 0, checkpoint = NULL, record = NULL,
			prompt_tokens = 0, completion_tokens = 0, started_at = excluded.started_at, ended_at = 0, consensus_level = '', escalations = '', votes = NULL,
			human_decision = '', paused_after = 0, paused_at = 0, paused_until = 0, source = excluded.source, title = '', last_phase = '', last_round = 0`),
		d.ID, d.JobID, d.Repository, d.PRNumber, d.HeadSHA, d.Trigger, d.Protocol, d.StartedAt.UnixNano(), d.Source)
	if err != nil {
		return fmt.Errorf("failed to begin debate %s: %w", d.ID, err)
	}
	return nil
}

// SaveCheckpoint stores the transcript after a completed phase, replacing the previous one.
func (s *Store) SaveCheckpoint(ctx context.Context, d *Debate) error {
	p := progressOf(d.Checkpoint)
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO debates (id, job_id, repository, pr_number, head_sha, trigger_name, protocol, phases, checkpoint, started_at, title, last_phase, last_round)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET job_id = excluded.job_id, phases = excluded.phases, checkpoint = excluded.checkpoint,
			title = excluded.title, last_phase = excluded.last_phase, last_round = excluded.last_round`),
		d.ID, d.JobID, d.Repository, d.PRNumber, d.HeadSHA, d.Trigger, d.Protocol, d.Phases, d.Checkpoint, d.StartedAt.UnixNano(), p.Title, p.Phase, p.Round)
	if err != nil {
		return fmt.Errorf("failed to checkpoint debate %s: %w", d.ID, err)
	}
	return nil
}

// FinishDebate stores a debate's decision record.
func (s *Store) FinishDebate(ctx context.Context, d *Debate) error {
	p := progressOf(d.Checkpoint)
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO debates (id, job_id, repository, pr_number, head_sha, trigger_name, protocol, decision, phases, checkpoint, record, prompt_tokens, completion_tokens, started_at, ended_at, consensus_level, escalations, votes, human_decision, cost_usd, title, last_phase, last_round)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET decision = excluded.decision, phases = excluded.phases, checkpoint = excluded.checkpoint, record = excluded.record,
			prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens, ended_at = excluded.ended_at,
			consensus_level = excluded.consensus_level, escalations = excluded.escalations, votes = excluded.votes, human_decision = excluded.human_decision, cost_usd = excluded.cost_usd,
			title = excluded.title, last_phase = excluded.last_phase, last_round = excluded.last_round`),
		d.ID, d.JobID, d.Repository, d.PRNumber, d.HeadSHA, d.Trigger, d.Protocol, d.Decision, d.Phases, d.Checkpoint, d.Record, d.Prompt, d.Completion,
		d.StartedAt.UnixNano(), d.EndedAt.UnixNano(), d.ConsensusLevel, d.Escalations, []byte(d.Votes), d.HumanDecision, d.CostUSD, p.Title, p.Phase, p.Round)
	if err != nil {
		return fmt.Errorf("failed to store the decision of debate %s: %w", d.ID, err)
	}
	return nil
}

// Debate reads a debate.
func (s *Store) Debate(ctx context.Context, id string) (*Debate, error) {
	var d Debate
	var started, ended int64
	err := s.db.QueryRowContext(ctx, s.q(`SELECT id, job_id, repository, pr_number, head_sha, trigger_name, protocol, decision, phases, checkpoint, record, prompt_tokens, completion_tokens, started_at, ended_at, source
		FROM debates WHERE id = ?`), id).Scan(&d.ID, &d.JobID, &d.Repository, &d.PRNumber, &d.HeadSHA, &d.Trigger, &d.Protocol, &d.Decision, &d.Phases,
		&d.Checkpoint, &d.Record, &d.Prompt, &d.Completion, &started, &ended, &d.Source)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read debate %s: %w", id, err)
	}
	d.StartedAt, d.EndedAt = time.Unix(0, started), time.Unix(0, ended)
	return &d, nil
}

// Debates lists every debate, oldest first, without their checkpoints and records.
func (s *Store) Debates(ctx context.Context) ([]Debate, error) {
	return s.debates(ctx, "ORDER BY started_at, id")
}

// LatestDecided returns the latest decided debate of a pull request, or ErrNotFound.
func (s *Store) LatestDecided(ctx context.Context, repo string, pr int) (*Debate, error) {
	return s.latest(ctx, "decision <> ''", repo, pr)
}

// PendingHumanDecision returns the latest debate of a pull request that waits for a human
// decision (after /human-review), or ErrNotFound.
func (s *Store) PendingHumanDecision(ctx context.Context, repo string, pr int) (*Debate, error) {
	return s.latest(ctx, "human_decision = 'pending'", repo, pr)
}

func (s *Store) latest(ctx context.Context, cond, repo string, pr int) (*Debate, error) {
	ds, err := s.debates(ctx, "WHERE repository = ? AND pr_number = ? AND "+cond+" ORDER BY started_at DESC, id DESC LIMIT 1", repo, pr)
	if err != nil {
		return nil, err
	}
	if len(ds) == 0 {
		return nil, ErrNotFound
	}
	return &ds[0], nil
}

// debates reads debates without their checkpoints and records; tail filters and orders them.
func (s *Store) debates(ctx context.Context, tail string, args ...any) ([]Debate, error) {
	rows, err := s.queryDebates(ctx, tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Debate
	for rows.Next() {
		d, err := scanDebate(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// queryDebates selects the debates debates reads, for scanDebate to read one at a time.
func (s *Store) queryDebates(ctx context.Context, tail string, args ...any) (*sql.Rows, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT id, job_id, repository, pr_number, head_sha, trigger_name, protocol, decision, phases, prompt_tokens, completion_tokens, started_at, ended_at,
		consensus_level, escalations, votes, human_decision FROM debates `+tail), args...)
	if err != nil {
		return nil, fmt.Errorf("failed to list debates: %w", err)
	}
	return rows, nil
}

// scanDebate reads the current row of queryDebates.
func scanDebate(rows *sql.Rows) (Debate, error) {
	var d Debate
	var started, ended int64
	var votes []byte
	if err := rows.Scan(&d.ID, &d.JobID, &d.Repository, &d.PRNumber, &d.HeadSHA, &d.Trigger, &d.Protocol, &d.Decision, &d.Phases, &d.Prompt, &d.Completion, &started, &ended,
		&d.ConsensusLevel, &d.Escalations, &votes, &d.HumanDecision); err != nil {
		return Debate{}, fmt.Errorf("failed to read a debate: %w", err)
	}
	d.Votes = string(votes)
	d.StartedAt, d.EndedAt = time.Unix(0, started), time.Unix(0, ended)
	return d, nil
}

// RecordHumanDecision keeps a human's final decision on a debate with its record and transcript
// rewritten to carry it (human_decision beside the debate's own decision).
func (s *Store) RecordHumanDecision(ctx context.Context, id, decision string, record, checkpoint []byte) error {
	if _, err := s.db.ExecContext(ctx, s.q("UPDATE debates SET human_decision = ?, record = ?, checkpoint = ? WHERE id = ?"), decision, record, checkpoint, id); err != nil {
		return fmt.Errorf("failed to record the human decision of %s: %w", id, err)
	}
	return nil
}

// SetHumanDecision records the human's decision of a debate.
func (s *Store) SetHumanDecision(ctx context.Context, id, decision string) error {
	if _, err := s.db.ExecContext(ctx, s.q("UPDATE debates SET human_decision = ? WHERE id = ?"), decision, id); err != nil {
		return fmt.Errorf("failed to record the human decision of %s: %w", id, err)
	}
	return nil
}

// SavePublication remembers the comment that carries a marker on a pull request.
func (s *Store) SavePublication(ctx context.Context, pr, marker string, commentID int64) error {
	_, err := s.db.ExecContext(ctx, s.q("INSERT INTO publications (pr_key, marker, comment_id) VALUES (?, ?, ?) ON CONFLICT (pr_key, marker) DO UPDATE SET comment_id = excluded.comment_id"),
		pr, marker, commentID)
	if err != nil {
		return fmt.Errorf("failed to remember comment %d of %s: %w", commentID, pr, err)
	}
	return nil
}

// Publication returns the comment id of a marker on a pull request, or ErrNotFound.
func (s *Store) Publication(ctx context.Context, pr, marker string) (int64, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, s.q("SELECT comment_id FROM publications WHERE pr_key = ? AND marker = ?"), pr, marker).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("failed to read the comments of %s: %w", pr, err)
	}
	return id, nil
}

// ClaimPublication remembers value under a marker unless one is already there: claimed reports
// whether this call put it (another replica's earlier claim wins), and existing is the value
// kept either way.
func (s *Store) ClaimPublication(ctx context.Context, pr, marker string, value int64) (existing int64, claimed bool, err error) {
	res, err := s.db.ExecContext(ctx, s.q("INSERT INTO publications (pr_key, marker, comment_id) VALUES (?, ?, ?) ON CONFLICT (pr_key, marker) DO NOTHING"), pr, marker, value)
	if err != nil {
		return 0, false, fmt.Errorf("failed to claim %s of %s: %w", marker, pr, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 1 {
		return value, true, nil
	}
	existing, err = s.Publication(ctx, pr, marker)
	return existing, false, err
}

// SwapPublication replaces a marker's value with value when it is still old, and reports
// whether it did.
func (s *Store) SwapPublication(ctx context.Context, pr, marker string, old, value int64) (bool, error) {
	res, err := s.db.ExecContext(ctx, s.q("UPDATE publications SET comment_id = ? WHERE pr_key = ? AND marker = ? AND comment_id = ?"), value, pr, marker, old)
	if err != nil {
		return false, fmt.Errorf("failed to update %s of %s: %w", marker, pr, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("failed to update %s of %s: %w", marker, pr, err)
	}
	return n == 1, nil
}

// DeletePublication forgets a marker (nothing when there is none).
func (s *Store) DeletePublication(ctx context.Context, pr, marker string) error {
	if _, err := s.db.ExecContext(ctx, s.q("DELETE FROM publications WHERE pr_key = ? AND marker = ?"), pr, marker); err != nil {
		return fmt.Errorf("failed to forget %s of %s: %w", marker, pr, err)
	}
	return nil
}

// Publications returns every marker remembered under pr with its value.
func (s *Store) Publications(ctx context.Context, pr string) (map[string]int64, error) {
	rows, err := s.db.QueryContext(ctx, s.q("SELECT marker, comment_id FROM publications WHERE pr_key = ?"), pr)
	if err != nil {
		return nil, fmt.Errorf("failed to read the publications of %s: %w", pr, err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var marker string
		var id int64
		if err := rows.Scan(&marker, &id); err != nil {
			return nil, fmt.Errorf("failed to read the publications of %s: %w", pr, err)
		}
		out[marker] = id
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("failed to read the publications of %s: %w", pr, err)
	}
	return out, nil
}

// SaveCheckRun remembers a debate's check run, so that a resumed debate concludes the same one.
func (s *Store) SaveCheckRun(ctx context.Context, debateID string, id int64) error {
	_, err := s.db.ExecContext(ctx, s.q("INSERT INTO check_runs (debate_id, check_run_id) VALUES (?, ?) ON CONFLICT (debate_id) DO UPDATE SET check_run_id = excluded.check_run_id"), debateID, id)
	if err != nil {
		return fmt.Errorf("failed to remember the check run of %s: %w", debateID, err)
	}
	return nil
}

// CheckRun returns a debate's check run id, or ErrNotFound.
func (s *Store) CheckRun(ctx context.Context, debateID string) (int64, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, s.q("SELECT check_run_id FROM check_runs WHERE debate_id = ?"), debateID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("failed to read the check run of %s: %w", debateID, err)
	}
	return id, nil
}

// DefaultTrust is an agent's trust before any human override.
const DefaultTrust = 1.0

// Trust returns an agent's trust in a repository.
func (s *Store) Trust(ctx context.Context, repo, agent string) (float64, error) {
	var v float64
	err := s.db.QueryRowContext(ctx, s.q("SELECT trust FROM trust WHERE repository = ? AND agent = ?"), repo, agent).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return DefaultTrust, nil
	}
	if err != nil {
		return 0, fmt.Errorf("failed to read the trust of %s in %s: %w", agent, repo, err)
	}
	return v, nil
}

// LearnTrust moves an agent's trust toward its agreement with a human decision: an exponential
// moving average toward 1.5 when it agreed and 0.5 when it did not, at rate alpha.
func (s *Store) LearnTrust(ctx context.Context, repo, agent string, agreed bool, alpha float64) (float64, error) {
	cur, err := s.Trust(ctx, repo, agent)
	if err != nil {
		return 0, err
	}
	target := 0.5
	if agreed {
		target = 1.5
	}
	next := cur + alpha*(target-cur)
	_, err = s.db.ExecContext(ctx, s.q(`INSERT INTO trust (repository, agent, trust, overrides) VALUES (?, ?, ?, 1)
		ON CONFLICT (repository, agent) DO UPDATE SET trust = excluded.trust, overrides = trust.overrides + 1`), repo, agent, next)
	if err != nil {
		return 0, fmt.Errorf("failed to store the trust of %s in %s: %w", agent, repo, err)
	}
	return next, nil
}

// Paused is a debate paused at a human checkpoint (seed 002), waiting for an answer.
type Paused struct {
	ID string
	// JobID is the job that held the debate until it paused: its payload says how to resume it.
	JobID int64
	// AfterRound is the round the debate paused after.
	AfterRound int
	// At is when it paused; Until when its wait ends (the protocol's checkpoint timeout).
	At, Until time.Time
}

// PauseDebate marks an undecided debate paused after a round, at a time, waiting until another;
// its last checkpoint is what a resume starts from.
func (s *Store) PauseDebate(ctx context.Context, id string, afterRound int, at, until time.Time) error {
	res, err := s.db.ExecContext(ctx, s.q("UPDATE debates SET paused_after = ?, paused_at = ?, paused_until = ? WHERE id = ? AND decision = ''"), afterRound, at.UnixNano(), until.UnixNano(), id)
	if err != nil {
		return fmt.Errorf("failed to pause debate %s after round %d: %w", id, afterRound, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("failed to pause debate %s after round %d: no undecided debate has that id: %w", id, afterRound, ErrNotFound)
	}
	return nil
}

// PausedDebate returns the latest paused debate of a pull request, or ErrNotFound.
func (s *Store) PausedDebate(ctx context.Context, repo string, pr int) (*Paused, error) {
	var at, until int64
	var p Paused
	err := s.db.QueryRowContext(ctx, s.q(`SELECT id, job_id, paused_after, paused_at, paused_until FROM debates
		WHERE repository = ? AND pr_number = ? AND paused_after > 0 AND decision = '' ORDER BY paused_at DESC, id DESC LIMIT 1`), repo, pr).
		Scan(&p.ID, &p.JobID, &p.AfterRound, &at, &until)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read the paused debate of %s#%d: %w", repo, pr, err)
	}
	p.At, p.Until = time.Unix(0, at), time.Unix(0, until)
	return &p, nil
}

// PausedUntil lists the paused debates whose wait ended by t, oldest first.
func (s *Store) PausedUntil(ctx context.Context, t time.Time) ([]Paused, error) {
	rows, err := s.db.QueryContext(ctx, s.q("SELECT id, job_id, paused_after, paused_at, paused_until FROM debates WHERE paused_after > 0 AND decision = '' AND paused_until <= ? ORDER BY paused_at, id"), t.UnixNano())
	if err != nil {
		return nil, fmt.Errorf("failed to list paused debates: %w", err)
	}
	defer rows.Close()
	var out []Paused
	for rows.Next() {
		var p Paused
		var at, until int64
		if err := rows.Scan(&p.ID, &p.JobID, &p.AfterRound, &at, &until); err != nil {
			return nil, fmt.Errorf("failed to read a paused debate: %w", err)
		}
		p.At, p.Until = time.Unix(0, at), time.Unix(0, until)
		out = append(out, p)
	}
	return out, rows.Err()
}

// Unpause records the answer to a paused debate: the checkpoint (which carries the answer)
// replaces the stored one and the debate is no longer paused. It reports false when the debate
// was not paused after that round any more (another answer came first), and changes nothing then.
// A nil checkpoint keeps the stored one (a stale debate left unfinished).
func (s *Store) Unpause(ctx context.Context, id string, afterRound int, checkpoint []byte) (bool, error) {
	res, err := s.db.ExecContext(ctx, s.q("UPDATE debates SET paused_after = 0, checkpoint = COALESCE(?, checkpoint) WHERE id = ? AND paused_after = ? AND decision = ''"), checkpoint, id, afterRound)
	if err != nil {
		return false, fmt.Errorf("failed to record the answer to paused debate %s: %w", id, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// NewerHead reports whether a job of another head of the pull request was enqueued after the
// job afterID: a debate paused on the older head is stale, and resuming it would supersede the
// newer head's debate.
func (s *Store) NewerHead(ctx context.Context, pr, head string, afterID int64) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, s.q("SELECT COUNT(*) FROM jobs WHERE pr_key = ? AND id > ? AND head_sha <> '' AND head_sha <> ?"), pr, afterID, head).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("failed to look for newer heads of %s: %w", pr, err)
	}
	return n > 0, nil
}
