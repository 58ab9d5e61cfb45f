package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
)

// Kind is what a job does.
type Kind string

// Job kinds.
const (
	KindReview      Kind = "review"       // debate a pull request
	KindDesign      Kind = "design"       // debate an issue's title and body
	KindHumanReview Kind = "human_review" // /human-review: a human decides
	// KindHumanDecision is the human's decision after /human-review: "/human-review approve",
	// "/human-review request-changes", or the pull request merged or closed.
	KindHumanDecision Kind = "human_decision"
	// KindCheckpoint is an answer to a debate paused at a human checkpoint: "/debate continue",
	// "/debate guide TEXT" or "/debate end" (Protocol is the action, Body the guidance).
	KindCheckpoint Kind = "checkpoint"
	// KindHelp answers "/help" or "/debate help" with the commands and the configuration.
	KindHelp Kind = "help"
	// KindCI is a completed workflow run or check run (CI holds it): a failure is recorded and
	// may start a failure debate (seed 000); a success resets its task.
	KindCI Kind = "ci"
	// KindPush resets the failure counts of a pull request's tasks when a push changed CI's environment.
	KindPush Kind = "push"
	// KindFresh is "/debate fresh": every failure count of the pull request is reset.
	KindFresh Kind = "fresh"
	// KindPlan is "/debate plan TEXT": a planning debate (seed 000) over Body.
	KindPlan Kind = "plan"
	// KindAlert is a code scanning or Dependabot alert (Alert holds it).
	KindAlert Kind = "alert"
	// KindReply is a person's reply in the thread of one of the bot's review comments: a
	// dismissal of its finding or a question about it.
	KindReply Kind = "reply"
)

// Job is one accepted delivery's work. It is a union of the kinds: DeliveryID, Trigger, Kind,
// Installation and PR (Number 0: the repository, for a KindAlert or a KindCI whose delivery named
// no pull request) are every kind's; Enqueued is set by the queue, StoreID and Cancel by the
// worker that claims it. The other fields, by kind:
//
//   - KindReview: HeadSHA and Draft (pull_request events); Protocol, Requester, CommentID and
//     CommentVersion ("/debate [protocol]"); Alert (a code scanning alert on the pull request's
//     ref); Resume (the resumption of a paused debate).
//   - KindDesign: Title and Body (the issue's); Protocol, Requester, CommentID, CommentVersion
//     (a command on an issue); Alert (the debate of an alert issue); Resume.
//   - KindHumanReview, KindHelp, KindFresh: Requester, CommentID, CommentVersion.
//   - KindHumanDecision: Protocol ("approve" or "request_changes"); Requester, CommentID and
//     CommentVersion for "/human-review approve|request-changes", none for a merge or close.
//   - KindCheckpoint: Protocol (the action), Body (the guidance), Requester, CommentID,
//     CommentVersion (none of the comment's for an answer from the dashboard).
//   - KindCI: HeadSHA and CI.
//   - KindPush: HeadSHA and Before.
//   - KindPlan: Title (the issue's, as context), Body (the proposal), Requester, CommentID,
//     CommentVersion.
//   - KindAlert: Alert (a default-branch alert).
//   - KindReply: Requester (the reply's author), CommentID and CommentVersion (the reply's),
//     InReplyTo (the comment that opened the thread), Body (the reply's text).
//
// Draft is set for pull_request events and read by no job today (the review job reads the
// pull request's own).
type Job struct {
	DeliveryID   string
	Trigger      string // "pull_request.opened", "issue_comment.created", ...
	Kind         Kind
	Installation int64
	PR           review.PullRequest
	// HeadSHA is known for pull_request events; commands read it from the pull request.
	HeadSHA  string
	Draft    bool
	Protocol string
	// Requester is the commenter whose permission a command needs; empty for events.
	Requester string
	CommentID int64
	// CommentVersion is the command comment's updated_at: a command is one job per comment and
	// edit, however often its delivery is replayed.
	CommentVersion string
	// Title and Body are the issue's, for design debates.
	Title, Body string
	Enqueued    time.Time
	// Resume is "debate-id/round" on the job that resumes a debate paused at a checkpoint after
	// the round, once a human answered: it is the paused job's own, authorised when it started.
	Resume string `json:",omitempty"`
	// CI is the workflow or check run of a KindCI job; Before the head a KindPush moved from;
	// Alert the alert of a KindAlert job.
	CI     *CIRun `json:",omitempty"`
	Before string `json:",omitempty"`
	Alert  *Alert `json:",omitempty"`
	// InReplyTo is the review comment a KindReply answers (its thread's first comment).
	InReplyTo int64 `json:",omitempty"`

	// StoreID is the job's id in the store, and Cancel the stop requested for it there (the
	// store's CancelHumanReview); both are set when a worker claims it.
	StoreID int64  `json:"-"`
	Cancel  string `json:"-"`
}

// ErrSuperseded is the cause a debate is cancelled with when a newer head of its pull request
// arrives.
var ErrSuperseded = errors.New("superseded by a newer push")

// ErrUnavailable wraps a store failure while accepting a delivery: the handler answers 503 and
// GitHub shows the delivery failed, so that it can be redelivered; nothing is acknowledged that
// was not kept.
var ErrUnavailable = errors.New("the job store is unavailable")

// RunFunc holds one job.
type RunFunc func(ctx context.Context, job *Job) error

type running struct {
	job *Job
	// head is the head the job was enqueued with (empty for commands until they read it): only a
	// different, known head supersedes a running debate.
	head   string
	cancel context.CancelCauseFunc
}

// supersededBy reports whether a review of head makes the running job's debate stale.
func (r *running) supersededBy(kind Kind, head string) bool {
	return kind == KindReview && r.job.Kind == KindReview && head != "" && r.head != "" && r.head != head
}

// QueueOptions tune the workers.
type QueueOptions struct {
	// Owner names this replica in leases.
	Owner string
	// Lease is how long a claimed job is this worker's without a heartbeat; Heartbeat how often
	// it is extended.
	Lease, Heartbeat time.Duration
	// Poll is how often idle workers look for jobs other replicas enqueued.
	Poll time.Duration
	// MaxAttempts bounds the tries of a job; Backoff is the wait after the first failure,
	// doubling after each.
	MaxAttempts int
	Backoff     time.Duration
	// GiveUp is told of a job that failed for good, to surface it where users look.
	GiveUp func(context.Context, *Job, error)
	// Sweep, when set, runs every SweepEvery: it ends the paused debates whose checkpoint
	// timeout is over (Runner.SweepPaused), which no delivery may ever come to wake.
	Sweep      func(context.Context) error
	SweepEvery time.Duration
	// Metrics counts what became of the deliveries' jobs (Deliver); nil counts nothing.
	Metrics *Metrics
}

// DefaultQueueOptions are the production settings.
func DefaultQueueOptions() QueueOptions {
	host, _ := os.Hostname()
	return QueueOptions{
		Owner: fmt.Sprintf("%s-%d-%d", host, os.Getpid(), time.Now().UnixNano()%1e6),
		Lease: 2 * time.Minute, Heartbeat: 30 * time.Second, Poll: time.Second, MaxAttempts: 5, Backoff: 30 * time.Second,
		SweepEvery: time.Minute,
	}
}

// Queue keeps jobs in the store: a delivery is written before the webhook is acknowledged, the
// same delivery twice or the same head and trigger twice is one job, a newer head supersedes the
// older head's queued and running debates, workers claim jobs with a lease they heartbeat, and a
// failed job is retried with backoff up to a bound, then marked failed with its error. A replica
// that dies leaves its lease to expire, and another takes the job over.
type Queue struct {
	store *store.Store
	run   RunFunc
	log   zerolog.Logger
	opts  QueueOptions

	notify  chan struct{}
	mu      sync.Mutex
	running map[string]*running
	wg      sync.WaitGroup
	active  atomic.Int64
}

// NewQueue returns a queue over the store.
func NewQueue(st *store.Store, run RunFunc, log zerolog.Logger, opts QueueOptions) *Queue {
	return &Queue{store: st, run: run, log: log, opts: opts, notify: make(chan struct{}, 1), running: map[string]*running{}}
}

func prKey(pr review.PullRequest) string { return pr.String() }

// jobKey dedupes jobs: a command is one per comment and edit (a replayed comment, under any
// delivery id, is one job); a review of a known head is one per head, trigger and protocol;
// anything else is one per delivery.
func jobKey(job *Job) string {
	if job.Resume != "" {
		return "resume/" + job.Resume
	}
	if job.CommentID != 0 {
		return fmt.Sprintf("comment/%s/%d/%s", prKey(job.PR), job.CommentID, job.CommentVersion)
	}
	if job.Kind == KindReview && job.HeadSHA != "" {
		return fmt.Sprintf("%s@%s/%s/%s", prKey(job.PR), job.HeadSHA, job.Trigger, job.Protocol)
	}
	return "delivery/" + job.DeliveryID
}

// priority puts /human-review and human decisions before queued debates: a stop must not wait
// for the debates it would stop. A reply in a finding's thread is a person waiting for a short
// answer, and goes first too.
func priority(k Kind) int {
	if k == KindHumanReview || k == KindHumanDecision || k == KindCheckpoint || k == KindReply {
		return 1
	}
	return 0
}

// Deliver queues the job of a webhook delivery (an event handler's), counts its outcome
// (enqueued, deduplicated, or the store unavailable) and logs it. A store that cannot keep the
// job is an error, which the webhook answers 503 so that GitHub can redeliver.
func (q *Queue) Deliver(ctx context.Context, job *Job) error {
	log := zerolog.Ctx(ctx).With().Str("repository", job.PR.Repository()).Int("pr_number", job.PR.Number).Str("trigger", job.Trigger).Logger()
	accepted, reason, err := q.Enqueue(ctx, job)
	if err != nil {
		q.opts.Metrics.webhookOutcome(job.Trigger, "store_unavailable")
		return fmt.Errorf("failed to enqueue a debate for %s: %w", job.PR, err)
	}
	outcome := "enqueued"
	if !accepted {
		outcome = "deduplicated"
	}
	q.opts.Metrics.webhookOutcome(job.Trigger, outcome)
	log.Info().Bool("accepted", accepted).Str("reason", reason).Msg("Handled a debate trigger.")
	return nil
}

// Enqueue keeps the job in the store and wakes a worker.
func (q *Queue) Enqueue(ctx context.Context, job *Job) (accepted bool, reason string, err error) {
	job.Enqueued = time.Now()
	key := prKey(job.PR)
	// /human-review stops nothing here: its job authorises the commenter first, then asks the
	// store to stop the pull request's debates (StopDebates).
	payload, err := json.Marshal(job)
	if err != nil {
		return false, "", fmt.Errorf("failed to encode the job of delivery %s: %w", job.DeliveryID, err)
	}
	res, err := q.store.Enqueue(ctx, job.DeliveryID, job.Trigger, &store.Job{
		Key: jobKey(job), PR: key, HeadSHA: job.HeadSHA, Kind: string(job.Kind), Payload: payload, Priority: priority(job.Kind),
	})
	if err != nil {
		return false, "", fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	if !res.Accepted {
		return false, res.Reason, nil
	}
	if job.Kind == KindReview && job.HeadSHA != "" {
		q.mu.Lock()
		if r, ok := q.running[key]; ok && r.supersededBy(job.Kind, job.HeadSHA) {
			r.cancel(ErrSuperseded)
		}
		q.mu.Unlock()
	}
	select {
	case q.notify <- struct{}{}:
	default:
	}
	return true, "queued", nil
}

// StopLocal cancels the running debate (of a change or a design) of a pull request or issue on
// this replica at once, with cause; other replicas learn of a stop from the store at their next
// heartbeat.
func (q *Queue) StopLocal(pr review.PullRequest, cause error) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	r, ok := q.running[prKey(pr)]
	stop := ok && (r.job.Kind == KindReview || r.job.Kind == KindDesign)
	if stop {
		r.cancel(cause)
	}
	return stop
}

// Start runs workers, and the periodic sweep, until ctx ends.
func (q *Queue) Start(ctx context.Context, workers int) {
	if q.opts.Sweep != nil && q.opts.SweepEvery > 0 {
		q.wg.Add(1)
		go func() {
			defer q.wg.Done()
			t := time.NewTicker(q.opts.SweepEvery)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					if err := q.opts.Sweep(ctx); err != nil && ctx.Err() == nil {
						q.log.Warn().Err(err).Msg("The sweep of paused debates failed; it runs again later.")
					}
				}
			}
		}()
	}
	for i := 0; i < workers; i++ {
		q.wg.Add(1)
		go func() {
			defer q.wg.Done()
			q.work(ctx)
		}()
	}
}

// Stop waits for the workers to return after their context ended.
func (q *Queue) Stop() { q.wg.Wait() }

// Wait blocks until no job is queued, running or due for a retry soon (tests, shutdown).
func (q *Queue) Wait() {
	for {
		counts, err := q.store.Counts(context.Background())
		if err == nil && counts[store.Queued] == 0 && counts[store.Running] == 0 && q.active.Load() == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (q *Queue) work(ctx context.Context) {
	idle := time.NewTimer(0)
	defer idle.Stop()
	for ctx.Err() == nil {
		q.active.Add(1)
		j, abandoned, err := q.store.ClaimCapped(ctx, q.opts.Owner, q.opts.Lease, q.opts.MaxAttempts)
		for _, a := range abandoned {
			q.abandoned(ctx, a)
		}
		if err != nil || j == nil {
			q.active.Add(-1)
			if err != nil && ctx.Err() == nil {
				q.log.Error().Err(err).Msg("Could not claim a job; the store may be down. Retrying.")
			}
			idle.Reset(q.opts.Poll)
			select {
			case <-ctx.Done():
				return
			case <-q.notify:
			case <-idle.C:
			}
			continue
		}
		q.execute(ctx, j)
		q.active.Add(-1)
	}
}

// AbandonedError is why a job failed for good when every worker that held it stopped (the
// process crashed, was killed, or lost the lease) as many times as the job may be tried.
type AbandonedError struct {
	Times int
}

func (e *AbandonedError) Error() string {
	return fmt.Sprintf("the worker stopped %d times while holding this job", e.Times)
}

// abandoned reports a job the store failed at claim time because its workers kept stopping: it
// is not run again (it may be what stops them), and users are told once, by this replica.
func (q *Queue) abandoned(ctx context.Context, sj *store.Job) {
	log := q.log.With().Int64("job_id", sj.ID).Str("delivery_id", sj.DeliveryID).Int("attempts", sj.Attempts).Logger()
	var job Job
	if err := json.Unmarshal(sj.Payload, &job); err != nil {
		log.Error().Err(err).Msg("An abandoned job's payload is unreadable; it is marked failed.")
		return
	}
	job.StoreID = sj.ID
	log = log.With().Str("repository", job.PR.Repository()).Int("pr_number", job.PR.Number).Logger()
	cause := &AbandonedError{Times: sj.Attempts}
	log.Error().Err(cause).Msg("The job stopped its worker each time it ran; it is failed, not run again.")
	if q.opts.GiveUp != nil {
		q.opts.GiveUp(log.WithContext(context.WithoutCancel(ctx)), &job, cause)
	}
}

func (q *Queue) execute(parent context.Context, sj *store.Job) {
	var job Job
	log := q.log.With().Int64("job_id", sj.ID).Str("delivery_id", sj.DeliveryID).Logger()
	if err := json.Unmarshal(sj.Payload, &job); err != nil {
		log.Error().Err(err).Msg("A job's payload is unreadable; it is marked failed.")
		_, _ = q.store.Fail(parent, sj, q.opts.Owner, fmt.Errorf("unreadable payload: %w", err), q.opts.Backoff, 0)
		return
	}
	job.StoreID, job.Cancel = sj.ID, sj.Cancel
	key := prKey(job.PR)
	log = log.With().Str("repository", job.PR.Repository()).Int("pr_number", job.PR.Number).Logger()
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	q.mu.Lock()
	if r, ok := q.running[key]; ok && r.supersededBy(job.Kind, sj.HeadSHA) {
		r.cancel(ErrSuperseded)
	}
	q.running[key] = &running{job: &job, head: sj.HeadSHA, cancel: cancel}
	q.mu.Unlock()
	defer func() {
		q.mu.Lock()
		if r, ok := q.running[key]; ok && r.job == &job {
			delete(q.running, key)
		}
		q.mu.Unlock()
	}()

	// Heartbeat: a lost lease means another replica took the job over, or a newer head
	// superseded it; either way this worker stops.
	beat := make(chan struct{})
	go func() {
		t := time.NewTicker(q.opts.Heartbeat)
		defer t.Stop()
		for {
			select {
			case <-beat:
				return
			case <-t.C:
				stop, err := q.store.Beat(parent, sj.ID, q.opts.Owner, q.opts.Lease)
				if stop == store.CancelHumanReview && sj.Cancel != store.CancelHumanReview {
					// /human-review, asked on any replica: the debate stops and publishes
					// what was said; the heartbeat goes on while it does. A stop the job
					// was claimed with is the runner's to apply (its debate stops at once):
					// cancelling here too would fail the reads before the debate, every try.
					cancel(toulmin.ErrHumanReview)
				}
				if errors.Is(err, store.ErrLeaseLost) {
					if cur, err := q.store.Job(parent, sj.ID); err == nil && cur.State == store.Superseded {
						cancel(ErrSuperseded)
					} else {
						cancel(store.ErrLeaseLost)
					}
					return
				} else if err != nil {
					log.Warn().Err(err).Msg("Could not extend the job's lease.")
				}
			}
		}
	}()
	err := q.run(log.WithContext(ctx), &job)
	// The heartbeat goes on while the outcome is recorded: a store that is briefly away must
	// not let the lease lapse on a job that has run, or another worker would run it again.
	defer close(beat)
	q.outcome(parent, context.Cause(ctx), sj, &job, err, log)
}

// outcome records how the job's run ended: done, failed (retried, or for good and reported
// through GiveUp), or given back at shutdown; nothing when another worker or a newer head has it.
func (q *Queue) outcome(parent context.Context, cause error, sj *store.Job, job *Job, err error, log zerolog.Logger) {
	switch {
	case errors.Is(cause, ErrSuperseded), errors.Is(cause, store.ErrLeaseLost):
		log.Info().AnErr("cause", cause).Msg("The debate stopped: superseded by a newer push or taken over.")
		return
	case parent.Err() != nil:
		// Shutting down: the job is queued again, its attempt not counted (the job did not end
		// it), and a worker resumes it from its checkpoint.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(parent), 5*time.Second)
		defer cancel()
		if err := q.store.Release(rctx, sj.ID, q.opts.Owner); err != nil && !errors.Is(err, store.ErrLeaseLost) {
			log.Warn().Err(err).Msg("Could not give the job back at shutdown; another worker takes it over when its lease lapses.")
		}
		return
	case err == nil:
		if err := q.settle(parent, func() error { return q.store.Complete(parent, sj.ID, q.opts.Owner) }); err != nil {
			log.Warn().Err(err).Msg("Could not mark the job done.")
		}
	default:
		var final bool
		ferr := q.settle(parent, func() (err2 error) {
			final, err2 = q.store.Fail(parent, sj, q.opts.Owner, err, q.opts.Backoff, q.opts.MaxAttempts)
			return err2
		})
		if ferr != nil {
			log.Error().Err(ferr).Msg("Could not record the job's failure.")
		}
		switch {
		case final && ferr == nil:
			log.Error().Err(err).Int("attempts", sj.Attempts).Msg("The debate job failed for good.")
			if q.opts.GiveUp != nil {
				q.opts.GiveUp(log.WithContext(parent), job, err)
			}
		case final:
			// Not recorded: the job stays running until its lease lapses, and the claim that
			// finds it past its attempts fails and reports it.
		default:
			log.Warn().Err(err).Int("attempts", sj.Attempts).Msg("The debate job failed; it will be retried.")
		}
	}
}

// settle records a job's outcome, trying again while the store is unreachable: the job has run,
// and an outcome lost to a brief outage would have it run a second time once its lease lapses.
// It gives up when the lease is lost (another worker has the job), on shutdown, or after twice
// the lease, when another worker may have taken the job over anyway.
func (q *Queue) settle(ctx context.Context, record func() error) error {
	deadline := time.Now().Add(2 * q.opts.Lease)
	wait := max(q.opts.Poll, 10*time.Millisecond)
	for {
		err := record()
		if err == nil || errors.Is(err, store.ErrLeaseLost) || ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		if wait = 2 * wait; wait > q.opts.Heartbeat {
			wait = q.opts.Heartbeat
		}
	}
}
