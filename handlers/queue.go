// Package handlers turns GitHub deliveries into debate jobs: go-githubapp event handlers that
// check and enqueue (nothing slow runs in a handler), the queue that dedupes and supersedes jobs,
// and the runner that holds a job's debate and publishes it on the pull request.
package handlers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/toulmin"
)

// Kind is what a job does.
type Kind string

// Job kinds.
const (
	KindReview      Kind = "review"       // debate a pull request
	KindDesign      Kind = "design"       // debate an issue's title and body
	KindHumanReview Kind = "human_review" // /human-review: a human decides
)

// Job is one accepted delivery's work.
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
	// Title and Body are the issue's, for design debates.
	Title, Body string
	Enqueued    time.Time
}

// ErrSuperseded is the cause a debate is cancelled with when a newer head of its pull request
// arrives.
var ErrSuperseded = errors.New("superseded by a newer push")

// ErrQueueFull is returned when no more jobs can wait; the handler answers 503 and GitHub shows
// the delivery as failed, so that it can be redelivered.
var ErrQueueFull = errors.New("the debate queue is full")

// RunFunc holds one job.
type RunFunc func(ctx context.Context, job *Job) error

type running struct {
	job    *Job
	cancel context.CancelCauseFunc
}

// Queue holds jobs in memory for a pool of workers: the same delivery twice is one job, the same
// head and trigger twice is one debate, a newer head of a pull request supersedes the older one's
// queued and running debates, and /human-review stops the running debate. (Durable jobs come with
// the store; this is the seam.)
type Queue struct {
	run RunFunc
	log zerolog.Logger

	mu         sync.Mutex
	jobs       chan *Job
	deliveries map[string]bool
	keys       map[string]bool
	latest     map[string]string // PR -> latest head SHA accepted
	running    map[string]*running
	wg         sync.WaitGroup
	active     sync.WaitGroup
}

// NewQueue returns a queue of at most size waiting jobs.
func NewQueue(size int, run RunFunc, log zerolog.Logger) *Queue {
	return &Queue{run: run, log: log, jobs: make(chan *Job, size), deliveries: map[string]bool{}, keys: map[string]bool{},
		latest: map[string]string{}, running: map[string]*running{}}
}

// Start runs workers until ctx ends.
func (q *Queue) Start(ctx context.Context, workers int) {
	for i := 0; i < workers; i++ {
		q.wg.Add(1)
		go func() {
			defer q.wg.Done()
			for {
				select {
				case <-ctx.Done():
					return
				case job := <-q.jobs:
					q.execute(ctx, job)
				}
			}
		}()
	}
}

// Wait blocks until every accepted job has finished (tests, shutdown).
func (q *Queue) Wait() { q.active.Wait() }

// Stop waits for the workers to return after their context ended.
func (q *Queue) Stop() { q.wg.Wait() }

func prKey(pr review.PullRequest) string { return pr.String() }

// Enqueue accepts a job, or says why it is not needed. It never blocks.
func (q *Queue) Enqueue(job *Job) (accepted bool, reason string, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if job.DeliveryID != "" && q.deliveries[job.DeliveryID] {
		return false, "delivery already accepted", nil
	}
	key := prKey(job.PR)
	if job.Kind == KindHumanReview {
		if r, ok := q.running[key]; ok && r.job.Kind != KindHumanReview {
			r.cancel(toulmin.ErrHumanReview)
			q.deliveries[job.DeliveryID] = true
			return true, "stopping the running debate for human review", nil
		}
	}
	dedupe := ""
	if job.Kind == KindReview && job.HeadSHA != "" {
		dedupe = fmt.Sprintf("%s@%s/%s/%s", key, job.HeadSHA, job.Trigger, job.Protocol)
		if q.keys[dedupe] {
			return false, "this head was already debated for this trigger", nil
		}
	}
	job.Enqueued = time.Now()
	q.active.Add(1)
	select {
	case q.jobs <- job:
	default:
		// Nothing is remembered of a refused job, so that GitHub's redelivery is accepted.
		q.active.Done()
		return false, "", ErrQueueFull
	}
	if job.DeliveryID != "" {
		q.deliveries[job.DeliveryID] = true
	}
	if dedupe != "" {
		q.keys[dedupe] = true
		if r, ok := q.running[key]; ok && r.job.HeadSHA != job.HeadSHA {
			r.cancel(ErrSuperseded)
		}
		q.latest[key] = job.HeadSHA
	}
	return true, "queued", nil
}

func (q *Queue) execute(parent context.Context, job *Job) {
	defer q.active.Done()
	key := prKey(job.PR)
	q.mu.Lock()
	if job.Kind == KindReview && job.HeadSHA != "" && q.latest[key] != job.HeadSHA {
		q.mu.Unlock()
		q.log.Info().Str("delivery_id", job.DeliveryID).Str("repository", job.PR.Repository()).Int("pr_number", job.PR.Number).
			Msg("Skipped a queued debate superseded by a newer push.")
		return
	}
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	if r, ok := q.running[key]; ok && job.Kind == KindReview && r.job.Kind == KindReview {
		// One debate per pull request at a time: a newer one replaces the older.
		r.cancel(ErrSuperseded)
	}
	q.running[key] = &running{job: job, cancel: cancel}
	q.mu.Unlock()
	defer func() {
		q.mu.Lock()
		if r, ok := q.running[key]; ok && r.job == job {
			delete(q.running, key)
		}
		q.mu.Unlock()
	}()
	log := q.log.With().Str("delivery_id", job.DeliveryID).Str("repository", job.PR.Repository()).Int("pr_number", job.PR.Number).Logger()
	if err := q.run(log.WithContext(ctx), job); err != nil {
		if errors.Is(context.Cause(ctx), ErrSuperseded) {
			log.Info().Msg("The debate was superseded by a newer push.")
			return
		}
		log.Error().Err(err).Msg("The debate job failed.")
	}
}
