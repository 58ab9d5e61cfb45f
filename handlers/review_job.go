package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/pipeline"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/review/pull"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"
)

// reviewJob holds a review debate (a pull request event, /debate, a design question, an alert)
// and publishes it: the job is admitted, its debate configured, and the review pipeline runs
// with the job's pull request as its source and destination and the store as its keeper.
func (r *Runner) reviewJob(ctx context.Context, api reviewGitHub, pub *publish.Publisher, job *Job) error {
	meta, err := reviewedPR(ctx, api, job)
	if err != nil {
		return err
	}
	repo, ok, err := r.admit(ctx, api, pub, job, meta)
	if err != nil || !ok {
		return err
	}
	d, offline, ok, err := r.reviewDebate(ctx, api, pub, job, repo, meta)
	if err != nil || !ok {
		return err
	}
	src := &jobSource{r: r, gh: api, pub: pub, job: job, meta: meta, repo: repo}
	defer src.close()
	// The debate's own context: /human-review stops it, seen on the job in the store when it was
	// claimed (jobKeeper.Resume), at a heartbeat (the queue) or at a phase boundary
	// (jobKeeper.Checkpoint).
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	rv := &pipeline.Review{
		Debate: d, Source: src,
		Publisher: &jobPublisher{r: r, pub: pub, job: job, meta: meta, event: repo.GitHubReviewEvent()},
		Keeper:    &jobKeeper{r: r, job: job, run: ctx, stop: stop, offline: offline},
	}
	_, err = rv.Run(ctx)
	return settled(ctx, d, err)
}

// reviewedPR reads the pull request a review job debates (nil for a design question), and
// fills the job's head from it when the event did not give one.
func reviewedPR(ctx context.Context, gh pullMeta, job *Job) (*github.PullRequest, error) {
	if job.Kind != KindReview {
		return nil, nil
	}
	meta, err := gh.PullRequest(ctx, job.PR)
	if err != nil {
		return nil, fmt.Errorf("failed to get pull request %s: %w", job.PR, err)
	}
	if job.HeadSHA == "" {
		job.HeadSHA = meta.GetHead().GetSHA()
	}
	return meta, nil
}

// admit reads the repository's configuration from the base branch and decides whether the job
// is debated: a broken configuration is explained in one comment, a command's requester must be
// authorised, and an event the configuration does not debate (a draft, an action it leaves out)
// is skipped. A command admitted is acknowledged with a reaction.
func (r *Runner) admit(ctx context.Context, gh commandGitHub, pub *publish.Publisher, job *Job, meta *github.PullRequest) (*config.Repo, bool, error) {
	log := zerolog.Ctx(ctx)
	repo, err := pull.LoadRepoConfig(ctx, gh, job.PR, meta.GetBase().GetRef())
	if err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			log.Warn().Err(err).Msg("The repository configuration is broken; no debate.")
			return nil, false, pub.Upsert(ctx, pull.ConfigErrorMarker, fmt.Sprintf("debatebot cannot run: `%s` is not valid.\n\n%s\n\nFix the file on the base branch and comment `/debate` to try again.",
				config.RepoPath, "- "+strings.Join(ce.Problems, "\n- ")))
		}
		return nil, false, err
	}
	if job.Requester != "" {
		if ok, err := r.authorise(ctx, gh, pub, job, repo); err != nil || !ok {
			return nil, false, err
		}
	}
	if job.Kind == KindReview && job.Requester == "" && job.Resume == "" {
		if meta.GetDraft() && !repo.Triggers.Drafts {
			log.Info().Msg("Skipped a draft pull request.")
			return nil, false, nil
		}
		if action, ok := strings.CutPrefix(job.Trigger, "pull_request."); ok && action != "labeled" && !slices.Contains(repo.Triggers.PullRequest, action) {
			log.Info().Str("action", action).Msg("Skipped a pull_request action the repository does not debate.")
			return nil, false, nil
		}
	}
	if job.CommentID != 0 {
		if err := gh.ReactToComment(ctx, job.PR, job.CommentID, "eyes"); err != nil {
			log.Warn().Err(err).Msg("Could not react to the command.")
		}
	}
	return repo, true, nil
}

// reviewDebate configures the job's debate under the repository's configuration: its protocol
// (a /debate argument it does not know is refused), its budget (every debate counts against its
// repository's, whatever started it), its agents (offline says why they are offline, if the
// budget made them so), its checkpoints and, for an alert, the alert as evidence.
func (r *Runner) reviewDebate(ctx context.Context, gh commandGitHub, pub *publish.Publisher, job *Job, repo *config.Repo, meta *github.PullRequest) (d *review.Debate, offline string, ok bool, err error) {
	protocol, err := repo.DebateProtocol(job.Protocol)
	if err != nil {
		return nil, "", false, r.refuse(ctx, gh, pub, job, fmt.Sprintf("debatebot: %v", err))
	}
	if job.Resume == "" {
		if ok, err := r.startDebate(ctx, pub, repo, jobKey(job), job.HeadSHA); err != nil || !ok {
			return nil, "", false, err
		}
	}
	agents, offline, err := r.budgetedAgents(ctx, job, repo)
	if err != nil {
		return nil, "", false, err
	}
	d = pipeline.NewDebate(repo, protocol, agents, job.Trigger)
	d.Repository, d.PRNumber, d.Clock = job.PR.Repository(), job.PR.Number, r.Clock
	if d.Dismissed, err = r.dismissed(ctx, job.PR.Repository()); err != nil {
		return nil, "", false, err
	}
	if job.Alert != nil {
		if meta != nil && meta.GetState() != "" && meta.GetState() != "open" {
			zerolog.Ctx(ctx).Info().Msg("Skipped an alert on a pull request that is not open.")
			return nil, "", false, nil
		}
		// A security alert is evidence, and the security stakeholder's to answer.
		d.WithAlerts(job.Alert.Alert)
	}
	if protocol.Checkpoints && r.Store != nil {
		d.Pause = r.pauseAt(pub, repo, protocol.CheckpointWait())
	}
	return d, offline, true, nil
}

// settled is the job's outcome from its review's: the cause of a debate a newer push superseded
// (the newer head's debate publishes) or whose job was stopped, none for a debate paused at a
// checkpoint until a human answers, the review's error otherwise.
func settled(ctx context.Context, d *review.Debate, err error) error {
	cause := context.Cause(ctx)
	var stopped *pipeline.StoppedError
	switch {
	case errors.Is(cause, ErrSuperseded):
		return cause
	case errors.Is(err, ErrPaused):
		zerolog.Ctx(ctx).Info().Str("debate_id", d.ID()).Msg("The debate is paused at a checkpoint until a human answers.")
		return nil
	case errors.As(err, &stopped):
		return stopped.Cause
	}
	return err
}

// reviewGitHub is what the review job needs of GitHub besides publishing (review.GitHub
// implements it): what a command needs, and what its source reads.
type reviewGitHub interface {
	commandGitHub
	sourceGitHub
}

// sourceGitHub is what the review job's source reads of GitHub (review.GitHub implements it): the
// pull request's change, what changed since its last debated head, and its trees.
type sourceGitHub interface {
	review.PullRequestReader
	pull.SinceReader
	treeGitHub
}

// jobSource reads what a review job debates: the design question, what a push changed since the
// last debated head, or the pull request's whole change, with its whole trees fetched when the
// analysis first asks for them.
type jobSource struct {
	r    *Runner
	gh   sourceGitHub
	pub  *publish.Publisher
	job  *Job
	meta *github.PullRequest
	repo *config.Repo
	// done removes the trees after the debate.
	done func()
}

// Read implements pipeline.Source.
func (s *jobSource) Read(ctx context.Context) (*pipeline.Subject, error) {
	job := s.job
	if job.Kind == KindDesign {
		return &pipeline.Subject{Question: strings.TrimSpace(job.Title + "\n\n" + job.Body)}, nil
	}
	subject := &pipeline.Subject{}
	prev, since, err := s.r.since(ctx, s.gh, s.pub, job, s.meta, s.repo)
	if err != nil {
		return nil, err
	}
	if since != nil {
		// The change's base tree is the earlier debated head; the earlier required changes are
		// carried forward.
		carried, err := s.r.dropDismissedCarried(ctx, job, review.CarryForward(prev, since))
		if err != nil {
			return nil, err
		}
		subject.Change, subject.Since = since, prev.HeadSHA
		subject.Carry = func(t *toulmin.Transcript) { review.ApplyCarried(t, prev, carried) }
	} else if subject.Change, err = review.ReadPullRequest(ctx, s.gh, job.PR, s.meta, s.repo.Ignore, review.DefaultMaxDiffBytes); err != nil {
		return nil, err
	}
	if subject.Change != nil && s.meta != nil && s.r.Trees != nil {
		// The trees are fetched when the analysis first asks for them, and removed after the
		// debate; the base tree is the pull request's merge base ("") for the whole change.
		s.done = s.r.Trees.attach(ctx, s.gh, job, subject.Change, s.meta, subject.Since)
	}
	return subject, nil
}

// close removes what the source fetched.
func (s *jobSource) close() {
	if s.done != nil {
		s.done()
	}
}

// jobPublisher publishes a review job's debate on its pull request, with the store as the
// publication's memory.
type jobPublisher struct {
	r     *Runner
	pub   *publish.Publisher
	job   *Job
	meta  *github.PullRequest
	event string
	show  func(toulmin.Event)
}

// Start implements pipeline.Publisher: the links to the pull request and the dashboard, and the
// check run of a change.
func (p *jobPublisher) Start(ctx context.Context, d *review.Debate) {
	if p.meta != nil {
		p.pub.DetailsURL = p.meta.GetHTMLURL()
	}
	if p.r.PublicURL != "" {
		p.pub.Link = strings.TrimSuffix(p.r.PublicURL, "/") + "/debates/" + url.PathEscape(d.ID())
	}
	if d.Change != nil {
		p.r.startCheck(ctx, p.pub, d)
		p.r.rememberJobCheck(ctx, p.job, p.pub)
	}
}

// Progress implements pipeline.Publisher: the transcript comment shows which phase runs.
func (p *jobPublisher) Progress(ctx context.Context, e toulmin.Event) {
	if p.show == nil {
		p.show = p.pub.ShowProgress(ctx, func(err error) { zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not show the debate's progress.") })
	}
	p.show(e)
}

// Publish implements pipeline.Publisher. A debate decided before (a retry after its publication
// failed) is published from the store, without the change of this run.
func (p *jobPublisher) Publish(ctx context.Context, res *pipeline.Result) error {
	t := res.Transcript
	log := zerolog.Ctx(ctx).With().Str("debate_id", t.DebateID).Logger()
	scope := &publish.ReviewScope{Event: p.event}
	if res.Kept {
		zerolog.Ctx(ctx).Info().Str("debate_id", t.DebateID).Msg("Publishing a decided debate from the store.")
	} else {
		scope.Change, scope.Since = res.Subject.Change, res.Subject.Since
	}
	return p.r.publish(log.WithContext(ctx), p.pub, t, scope)
}

// CannotDebate implements pipeline.Publisher.
func (p *jobPublisher) CannotDebate(ctx context.Context, ie *review.InputError) error {
	return p.r.cannotDebate(ctx, p.pub, p.job, ie)
}

// jobKeeper keeps a review job's debate in the store: every completed phase is checkpointed, a
// debate of the same id that a crash cut short resumes from its last checkpoint (asking no agent
// again for a phase it completed), and a decided one is kept with its cost and its outcome.
type jobKeeper struct {
	r   *Runner
	job *Job
	// run is the debate's context, stop stops it (/human-review).
	run     context.Context
	stop    context.CancelCauseFunc
	offline string
}

// Resume implements pipeline.Keeper: the debate's row is read once; a decided debate of this job
// is published from it, an undecided one with a checkpoint is resumed from it. The tokens are
// counted at every checkpoint, and a job /human-review flagged before it was claimed stops the
// debate at once.
func (k *jobKeeper) Resume(ctx context.Context, d *review.Debate) (*toulmin.Transcript, error) {
	prior, err := k.r.Store.Debate(ctx, d.ID())
	if errors.Is(err, store.ErrNotFound) {
		prior, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	if t, err := decided(prior, k.job); err != nil || t != nil {
		return t, err
	}
	if prior != nil && prior.Decision == "" && len(prior.Checkpoint) > 0 {
		var t toulmin.Transcript
		if err := json.Unmarshal(prior.Checkpoint, &t); err == nil {
			d.Prior = &t
			zerolog.Ctx(ctx).Info().Str("debate_id", prior.ID).Int("phases", len(t.Timeline)).Msg("Resuming a debate from its checkpoint.")
		}
	}
	k.r.countTokens(d)
	if k.job.Cancel == store.CancelHumanReview {
		k.stop(toulmin.ErrHumanReview)
	}
	return nil, nil
}

// Checkpoint implements pipeline.Keeper.
func (k *jobKeeper) Checkpoint(ctx context.Context, t *toulmin.Transcript) error {
	cp, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("failed to encode the checkpoint of %s: %w", t.DebateID, err)
	}
	job := k.job
	// Kept even while the debate stops (human review, shutdown): it is what a resume needs.
	if err := k.r.Store.SaveCheckpoint(context.WithoutCancel(ctx), &store.Debate{ID: t.DebateID, JobID: job.StoreID, Repository: job.PR.Repository(), PRNumber: job.PR.Number, HeadSHA: job.HeadSHA,
		Trigger: job.Trigger, Protocol: t.Protocol, Phases: len(t.Timeline), Checkpoint: cp, StartedAt: t.StartedAt}); err != nil {
		return err
	}
	// A phase boundary: /human-review asked on another replica stops the debate here at the
	// latest.
	if k.r.stopRequested(ctx, job) {
		k.stop(toulmin.ErrHumanReview)
	}
	return nil
}

// Finish implements pipeline.Keeper: the debate's metrics and budget, and its row, waiting for a
// human decision when /human-review stopped it. A debate a newer push superseded is not kept.
func (k *jobKeeper) Finish(ctx context.Context, d *review.Debate, t *toulmin.Transcript) error {
	cause := context.Cause(k.run)
	if errors.Is(cause, ErrSuperseded) {
		return cause
	}
	k.r.Metrics.debate(t)
	k.r.spent(ctx, d, t, k.offline)
	if k.r.Store == nil {
		return nil
	}
	human := ""
	if errors.Is(cause, toulmin.ErrHumanReview) || k.r.stopRequested(ctx, k.job) {
		// Asked for while the debate ended on its own: a human decides all the same.
		human = "pending"
	}
	row, err := pipeline.DecidedRow(t, k.job.StoreID, d.Repository, d.PRNumber, d.Trigger, human)
	if err != nil {
		return err
	}
	return k.r.Store.FinishDebate(ctx, row)
}

// publisher returns the publisher of a job's pull request; with a store, it remembers the ids of
// the bot's comments there, so that it need not list the comments to find them.
func (r *Runner) publisher(ctx context.Context, gh *github.Client, job *Job) *publish.Publisher {
	pub := publish.NewPublisher(gh, job.PR)
	pub.Bot = r.Bot
	if r.Store != nil {
		key := job.PR.String()
		log := zerolog.Ctx(ctx)
		pub.Known = func(marker string) (int64, bool) {
			id, err := r.Store.Publication(ctx, key, marker)
			return id, err == nil
		}
		pub.Remember = func(marker string, id int64) {
			if err := r.Store.SavePublication(context.WithoutCancel(ctx), key, marker, id); err != nil {
				log.Warn().Err(err).Msg("Could not remember a comment id.")
			}
		}
	}
	return pub
}

// startCheck creates the debate's check run, or reuses the one a resumed debate created.
func (r *Runner) startCheck(ctx context.Context, pub *publish.Publisher, d *review.Debate) {
	log := zerolog.Ctx(ctx)
	if r.Store != nil {
		if id, err := r.Store.CheckRun(ctx, d.ID()); err == nil {
			pub.UseCheckRun(id)
			return
		}
	}
	if err := publish.Retry(ctx, 3, func() error { return pub.StartCheck(ctx, d.Change.HeadSHA) }); err != nil {
		// Publishing creates it once GitHub answers again.
		log.Warn().Err(err).Msg("Could not create the check run.")
		return
	}
	if r.Store != nil {
		if err := r.Store.SaveCheckRun(ctx, d.ID(), pub.CheckRunID()); err != nil {
			log.Warn().Err(err).Msg("Could not remember the check run.")
		}
	}
}

// stopRequested reports whether /human-review flagged the job in the store.
func (r *Runner) stopRequested(ctx context.Context, job *Job) bool {
	if job.StoreID == 0 {
		return false
	}
	cur, err := r.Store.Job(context.WithoutCancel(ctx), job.StoreID)
	return err == nil && cur.Cancel == store.CancelHumanReview
}

// decided returns the transcript of the job's own debate when it was already decided (a retry
// after its publication failed), or nil.
func decided(prior *store.Debate, job *Job) (*toulmin.Transcript, error) {
	if job.StoreID == 0 || prior == nil || prior.Decision == "" || prior.JobID != job.StoreID || len(prior.Checkpoint) == 0 {
		return nil, nil
	}
	var t toulmin.Transcript
	if err := json.Unmarshal(prior.Checkpoint, &t); err != nil {
		return nil, fmt.Errorf("failed to read the stored transcript of debate %s: %w", prior.ID, err)
	}
	return &t, nil
}

// since returns what a push changed since the last debated head of the pull request, and that
// debate's record, when a new push follows a debate: users should not pay for, nor read again,
// a debate of code that was already debated. nil means debate the whole change.
func (r *Runner) since(ctx context.Context, gh pull.SinceReader, pub *publish.Publisher, job *Job, meta *github.PullRequest, repo *config.Repo) (*voting.Record, *change.Change, error) {
	if job.Trigger != "pull_request.synchronize" {
		return nil, nil, nil
	}
	prev, err := pull.LastDebated(ctx, pub, job.HeadSHA)
	if err != nil || prev == nil {
		return nil, nil, err
	}
	c, err := pull.ReadSince(ctx, gh, job.PR, meta, prev.HeadSHA, job.HeadSHA, repo.Ignore)
	if err != nil || c == nil {
		return nil, nil, err
	}
	return prev, c, nil
}

// publish publishes a finished transcript with the store as the publication's memory and the
// dashboard's link. When GitHub keeps failing, the error fails the job, which the queue retries
// with backoff from the store: the retry publishes the stored transcript (Runner.decided), it
// does not debate again, and a restart loses nothing.
func (r *Runner) publish(ctx context.Context, pub *publish.Publisher, t *toulmin.Transcript, how *publish.ReviewScope) error {
	opts := publish.DebateOptions{Review: how}
	if r.Store != nil {
		opts.Memo = r.Store
	}
	if r.PublicURL != "" && t.DebateID != "" {
		pub.Link = strings.TrimSuffix(r.PublicURL, "/") + "/debates/" + url.PathEscape(t.DebateID)
	}
	return pub.PublishDebate(ctx, t, opts)
}

// cannotDebate says once, edited in place, why the change cannot be debated (binary-only, empty,
// every file ignored), and concludes a neutral check run on its head.
func (r *Runner) cannotDebate(ctx context.Context, pub *publish.Publisher, job *Job, ie *review.InputError) error {
	msg := fmt.Sprintf("debatebot cannot debate this pull request: %v", ie.Problem)
	if err := publish.Retry(ctx, 3, func() error { return pub.Upsert(ctx, pull.CannotDebateMarker, msg) }); err != nil {
		return err
	}
	if job.HeadSHA == "" {
		return nil
	}
	key := "cannot-debate/" + job.PR.String() + "@" + job.HeadSHA
	if id, err := r.Store.CheckRun(ctx, key); err == nil {
		pub.UseCheckRun(id)
	}
	if err := publish.Retry(ctx, 3, func() error { return pub.NeutralCheck(ctx, job.HeadSHA, "Nothing to debate", msg) }); err != nil {
		return err
	}
	return r.Store.SaveCheckRun(ctx, key, pub.CheckRunID())
}
