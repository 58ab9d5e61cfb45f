package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"
)

// ConfigErrorMarker marks the one comment that explains a broken .github/debatebot.yml.
const ConfigErrorMarker = "<!-- debatebot:config-error -->"

// reviewJob holds a review debate (a pull request event, /debate, a design question, an alert)
// and publishes it.
func (r *Runner) reviewJob(ctx context.Context, gh *github.Client, pub *review.Publisher, job *Job) error {
	log := zerolog.Ctx(ctx)
	var err error
	baseRef := ""
	var meta *github.PullRequest
	if job.Kind == KindReview {
		meta, _, err = gh.PullRequests.Get(ctx, job.PR.Owner, job.PR.Repo, job.PR.Number)
		if err != nil {
			return fmt.Errorf("failed to get pull request %s: %w", job.PR, err)
		}
		baseRef = meta.GetBase().GetRef()
		if job.HeadSHA == "" {
			job.HeadSHA = meta.GetHead().GetSHA()
		}
	}
	repo, err := LoadRepoConfig(ctx, gh, job.PR, baseRef)
	if err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			log.Warn().Err(err).Msg("The repository configuration is broken; no debate.")
			return pub.Upsert(ctx, ConfigErrorMarker, fmt.Sprintf("debatebot cannot run: `%s` is not valid.\n\n%s\n\nFix the file on the base branch and comment `/debate` to try again.",
				config.RepoPath, "- "+strings.Join(ce.Problems, "\n- ")))
		}
		return err
	}
	if job.Requester != "" {
		if ok, err := r.authorise(ctx, gh, pub, job, repo); err != nil || !ok {
			return err
		}
	}
	if job.Kind == KindReview && job.Requester == "" && job.Resume == "" {
		if meta.GetDraft() && !repo.Triggers.Drafts {
			log.Info().Msg("Skipped a draft pull request.")
			return nil
		}
		if action, ok := strings.CutPrefix(job.Trigger, "pull_request."); ok && action != "labeled" && !slices.Contains(repo.Triggers.PullRequest, action) {
			log.Info().Str("action", action).Msg("Skipped a pull_request action the repository does not debate.")
			return nil
		}
	}
	if job.CommentID != 0 {
		if _, _, err := gh.Reactions.CreateIssueCommentReaction(ctx, job.PR.Owner, job.PR.Repo, job.CommentID, "eyes"); err != nil {
			log.Warn().Err(err).Msg("Could not react to the command.")
		}
	}

	protocol, err := repo.DebateProtocol(job.Protocol)
	if err != nil {
		return r.refuse(ctx, gh, pub, job, fmt.Sprintf("debatebot: %v", err))
	}
	if job.Resume == "" {
		// Every debate counts against its repository's budget, whatever started it.
		if ok, err := r.startDebate(ctx, pub, repo, jobKey(job), job.HeadSHA); err != nil || !ok {
			return err
		}
	}
	agents, offline, err := r.budgetedAgents(ctx, job, repo)
	if err != nil {
		return err
	}
	d := &review.Debate{
		Repository: job.PR.Repository(), PRNumber: job.PR.Number, Trigger: job.Trigger,
		Protocol: protocol, Agents: agents, Panel: repo.Panel(), Ignore: repo.Ignore, Weights: *repo.Weights,
		Thresholds: repo.VotingThresholds(), Concurrency: repo.LLM.Concurrency, Clock: r.Clock,
	}
	if job.Alert != nil {
		if meta != nil && meta.GetState() != "" && meta.GetState() != "open" {
			log.Info().Msg("Skipped an alert on a pull request that is not open.")
			return nil
		}
		// A security alert is evidence, and the security stakeholder's to answer.
		d.WithAlerts(job.Alert.Alert)
	}
	// treesBase is the commit the change's base tree is: the earlier debated head for what changed
	// since, the pull request's merge base ("") otherwise.
	treesBase := ""
	if job.Kind == KindDesign {
		d.Question = strings.TrimSpace(job.Title + "\n\n" + job.Body)
	} else {
		prev, carried, since, err := r.since(ctx, gh, pub, job, meta, repo)
		if err != nil {
			return err
		}
		if since != nil {
			d.Change, treesBase = since, prev.HeadSHA
			d.Carry = func(t *toulmin.Transcript) { review.ApplyCarried(t, prev, carried) }
		} else if d.Change, err = review.ReadPullRequest(ctx, gh, job.PR, meta, repo.Ignore, review.DefaultMaxDiffBytes); err != nil {
			var ie *review.InputError
			if errors.As(err, &ie) {
				return r.cannotDebate(ctx, pub, job, ie)
			}
			return err
		}
	}
	if meta != nil {
		pub.DetailsURL = meta.GetHTMLURL()
	}
	if r.PublicURL != "" {
		pub.Link = strings.TrimSuffix(r.PublicURL, "/") + "/debates/" + url.PathEscape(d.ID())
	}
	if d.Change != nil && meta != nil && r.Trees != nil {
		// The trees are fetched when the analysis first asks for them, and removed after the debate.
		defer r.Trees.attach(ctx, gh, job, d.Change, meta, treesBase)()
	}
	if d.Change != nil {
		r.startCheck(ctx, pub, d)
		r.rememberJobCheck(ctx, job, pub)
	}
	// A retry of a job whose debate was decided (publishing failed) publishes the stored
	// transcript: the debate is never held, nor paid for, twice.
	// The debate's row, read once: a decided debate of this job is published from it; an
	// undecided one with a checkpoint is resumed from it (durable).
	prior, err := r.Store.Debate(ctx, d.ID())
	if errors.Is(err, store.ErrNotFound) {
		prior, err = nil, nil
	}
	if err != nil {
		return err
	}
	if t, err := decided(prior, job); err != nil || t != nil {
		if err != nil {
			return err
		}
		log.Info().Str("debate_id", t.DebateID).Msg("Publishing a decided debate from the store.")
		return r.publish(log.With().Str("debate_id", t.DebateID).Logger().WithContext(ctx), pub, t, &ReviewScope{Event: repo.GitHubReviewEvent()})
	}
	// The debate's own context: /human-review stops it, seen on the job in the store when it was
	// claimed, at a heartbeat (the queue) or at a phase boundary (here).
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	if job.Cancel == store.CancelHumanReview {
		stop(toulmin.ErrHumanReview)
	}
	r.durable(ctx, d, job, prior, stop)
	r.countTokens(d)
	if protocol.Checkpoints && r.Store != nil {
		d.Pause = r.pauseAt(pub, repo, protocol.CheckpointWait())
	}
	d.Observer = ShowProgress(ctx, pub, func(err error) { log.Warn().Err(err).Msg("Could not show the debate's progress.") })
	t, err := d.Run(ctx)
	cause := context.Cause(ctx)
	var ie *review.InputError
	switch {
	case errors.Is(cause, ErrSuperseded):
		return cause // the newer head's debate publishes
	case errors.Is(err, ErrPaused):
		log.Info().Str("debate_id", d.ID()).Msg("The debate is paused at a checkpoint until a human answers.")
		return nil
	case err != nil && ctx.Err() != nil:
		return cause
	case errors.As(err, &ie):
		return r.cannotDebate(ctx, pub, job, ie)
	case err != nil:
		return err
	}
	logger := log.With().Str("debate_id", t.DebateID).Logger()
	r.Metrics.debate(t)
	r.spent(ctx, d, t, offline)
	if errors.Is(cause, toulmin.ErrHumanReview) {
		// The debate stopped for a human: its state is still kept and published, on a context of
		// its own.
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		ctx = pctx
	}
	if r.Store != nil {
		human := ""
		if errors.Is(cause, toulmin.ErrHumanReview) || r.stopRequested(ctx, job) {
			// Asked for while the debate ended on its own: a human decides all the same.
			human = "pending"
		}
		row, err := DecidedRow(t, job.StoreID, d.Repository, d.PRNumber, d.Trigger, human)
		if err != nil {
			return err
		}
		if err := r.Store.FinishDebate(ctx, row); err != nil {
			return err
		}
	}
	return r.publish(logger.WithContext(ctx), pub, t, &ReviewScope{Change: d.Change, Since: treesBase, Event: repo.GitHubReviewEvent()})
}

// publisher returns the publisher of a job's pull request; with a store, it remembers the ids of
// the bot's comments there, so that it need not list the comments to find them.
func (r *Runner) publisher(ctx context.Context, gh *github.Client, job *Job) *review.Publisher {
	pub := review.NewPublisher(gh, job.PR)
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
func (r *Runner) startCheck(ctx context.Context, pub *review.Publisher, d *review.Debate) {
	log := zerolog.Ctx(ctx)
	if r.Store != nil {
		if id, err := r.Store.CheckRun(ctx, d.ID()); err == nil {
			pub.UseCheckRun(id)
			return
		}
	}
	if err := retry(ctx, 3, func() error { return pub.StartCheck(ctx, d.Change.HeadSHA) }); err != nil {
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

// durable makes the debate resumable: every completed phase is checkpointed in the store, and a
// debate of the same id that a crash cut short resumes from its last checkpoint, asking no agent
// again for a phase it completed.
func (r *Runner) durable(ctx context.Context, d *review.Debate, job *Job, prior *store.Debate, stop context.CancelCauseFunc) {
	if prior != nil && prior.Decision == "" && len(prior.Checkpoint) > 0 {
		var t toulmin.Transcript
		if err := json.Unmarshal(prior.Checkpoint, &t); err == nil {
			d.Prior = &t
			zerolog.Ctx(ctx).Info().Str("debate_id", prior.ID).Int("phases", len(t.Timeline)).Msg("Resuming a debate from its checkpoint.")
		}
	}
	d.Checkpoint = func(ctx context.Context, t *toulmin.Transcript) error {
		cp, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("failed to encode the checkpoint of %s: %w", t.DebateID, err)
		}
		// Kept even while the debate stops (human review, shutdown): it is what a resume needs.
		if err := r.Store.SaveCheckpoint(context.WithoutCancel(ctx), &store.Debate{ID: t.DebateID, JobID: job.StoreID, Repository: d.Repository, PRNumber: d.PRNumber, HeadSHA: job.HeadSHA,
			Trigger: d.Trigger, Protocol: t.Protocol, Phases: len(t.Timeline), Checkpoint: cp, StartedAt: t.StartedAt}); err != nil {
			return err
		}
		// A phase boundary: /human-review asked on another replica stops the debate here at
		// the latest.
		if r.stopRequested(ctx, job) {
			stop(toulmin.ErrHumanReview)
		}
		return nil
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

// since returns what changed since the last debated head of the pull request, with the earlier
// required changes carried forward, when a new push follows a debate: users should not pay for,
// nor read again, a debate of code that was already debated. nil means debate the whole change.
func (r *Runner) since(ctx context.Context, gh *github.Client, pub *review.Publisher, job *Job, meta *github.PullRequest, repo *config.Repo) (*voting.Record, []toulmin.Carried, *change.Change, error) {
	if job.Trigger != "pull_request.synchronize" {
		return nil, nil, nil, nil
	}
	prev, err := pub.PreviousRecord(ctx)
	if err != nil || prev == nil || prev.HeadSHA == "" || prev.HeadSHA == job.HeadSHA {
		return nil, nil, nil, err
	}
	c, ok, err := review.ReadSince(ctx, gh, job.PR, prev.HeadSHA, job.HeadSHA)
	if err != nil || !ok {
		return nil, nil, nil, err
	}
	if err := review.DropIgnored(c, repo.Ignore); err != nil || len(c.Files) == 0 {
		return nil, nil, nil, err
	}
	c.Title, c.Body, c.BaseRef, c.HeadRef = meta.GetTitle(), meta.GetBody(), meta.GetBase().GetRef(), meta.GetHead().GetRef()
	review.ReadCommitMessages(ctx, gh, job.PR, c)
	review.FillContents(ctx, gh, job.PR, c)
	return prev, review.CarryForward(prev, c), c, nil
}

// publish publishes a finished transcript with the store as the publication's memory and the
// dashboard's link. When GitHub keeps failing, the error fails the job, which the queue retries
// with backoff from the store: the retry publishes the stored transcript (Runner.decided), it
// does not debate again, and a restart loses nothing.
func (r *Runner) publish(ctx context.Context, pub *review.Publisher, t *toulmin.Transcript, how *ReviewScope) error {
	opts := PublishOptions{Review: how}
	if r.Store != nil {
		opts.Memo = r.Store
	}
	if r.PublicURL != "" && t.DebateID != "" {
		pub.Link = strings.TrimSuffix(r.PublicURL, "/") + "/debates/" + url.PathEscape(t.DebateID)
	}
	return Publish(ctx, pub, t, opts)
}

// PublishOptions are what differs between the App's publication and the Action's.
type PublishOptions struct {
	// Memo, when set, remembers the check run, its conclusion and the inline review, so that a
	// retried job does not conclude or review twice; the Action, which publishes once, has none.
	Memo PublishMemo
	// NoCheck leaves the check run out: the Action's token may not create one (a pull request
	// from a fork).
	NoCheck bool
	// Review says what the inline review covers (nil: the whole pull request, the review event
	// COMMENT).
	Review *ReviewScope
}

// Publish writes a finished debate where the App and the Action publish it: the summary with the
// transcript, the decision, the check run, the inline review and the escalation label; each write
// is tried three times with backoff. pub.Link, when set, is the debate's dashboard page.
func Publish(ctx context.Context, pub *review.Publisher, t *toulmin.Transcript, opts PublishOptions) error {
	how := opts.Review
	if how == nil {
		how = &ReviewScope{}
	}
	md, err := review.SummaryComment(t, review.SummaryOptions{BlobURL: blobURL(pub.DetailsURL, t.Record.HeadSHA), Link: pub.Link})
	if err != nil {
		return err
	}
	dc, err := review.DecisionComment(t)
	if err != nil {
		return err
	}
	steps := []func() error{
		func() error { return pub.Upsert(ctx, review.TranscriptMarker, md) },
		func() error { return pub.Upsert(ctx, review.DecisionMarker, dc) },
		func() error {
			if opts.NoCheck {
				return nil
			}
			// A retry of the job (a later step failed) publishes the same stored transcript (the
			// same end): it does not conclude the check run again, as GitHub would show its
			// annotations twice.
			concluded := fmt.Sprintf("concluded:%s@%d", t.DebateID, t.EndedAt.UnixNano())
			if opts.Memo == nil {
				return pub.FinishCheck(ctx, t)
			}
			if id, err := opts.Memo.Publication(ctx, pub.PR().String(), concluded); err == nil && id != 0 && (pub.CheckRunID() == 0 || id == pub.CheckRunID()) {
				return nil
			}
			had := pub.CheckRunID()
			if err := pub.FinishCheck(ctx, t); err != nil {
				return err
			}
			if id := pub.CheckRunID(); id != had {
				// Created now, as its creation failed when the debate started.
				if err := opts.Memo.SaveCheckRun(ctx, t.DebateID, id); err != nil {
					zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not remember the check run.")
				}
			}
			if id := pub.CheckRunID(); id != 0 {
				if err := opts.Memo.SavePublication(ctx, pub.PR().String(), concluded, id); err != nil {
					zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not remember that the check run was concluded.")
				}
			}
			return nil
		},
	}
	if t.Record.HeadSHA != "" && t.Record.Synthesis == nil {
		steps = append(steps, func() error { return reviewOnce(ctx, pub, t, how, opts.Memo) })
	}
	if t.Record.Decision == voting.Escalate {
		steps = append(steps, func() error { return pub.Label(ctx, review.EscalationLabel) })
	}
	for _, step := range steps {
		if err := retry(ctx, 3, step); err != nil {
			return fmt.Errorf("failed to publish debate %s: %w", t.DebateID, err)
		}
	}
	zerolog.Ctx(ctx).Info().Str("decision", string(t.Record.Decision)).Msg("Published the debate.")
	return nil
}

// retry runs a publishing step up to attempts times while it fails for a reason that may pass: a
// network error or a server error the transport did not repeat (a POST's 5xx). GitHub's refusals
// (4xx: no permission, not found, validation, a rate limit the transport already waited on as
// long as it may) come back the same, so they return at once.
func retry(ctx context.Context, attempts int, f func() error) error {
	var err error
	delay := 200 * time.Millisecond
	for i := 0; i < attempts; i++ {
		if err = f(); err == nil || refused(err) || i == attempts-1 {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(delay):
		}
		delay *= 2
	}
	return err
}

// refused reports whether err is GitHub answering with a client error (4xx), which repeating the
// request does not change.
func refused(err error) bool {
	var er *github.ErrorResponse
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	switch {
	case errors.As(err, &er):
		return er.Response != nil && er.Response.StatusCode >= 400 && er.Response.StatusCode < 500
	case errors.As(err, &rl), errors.As(err, &ab):
		return true
	}
	return false
}

// ShowProgress is the debate's observer on the pull request: the transcript comment shows which
// phase runs, edited at most once per phase; failed hears of an edit GitHub refused.
func ShowProgress(ctx context.Context, pub *review.Publisher, failed func(error)) func(toulmin.Event) {
	return func(e toulmin.Event) {
		if e.Kind != toulmin.EventPhaseStarted || e.Phase.Phase == toulmin.PhaseDecision {
			return
		}
		if err := pub.Upsert(ctx, review.TranscriptMarker, review.ProgressComment(e.Transcript, e.Phase.Phase)); err != nil {
			failed(err)
		}
	}
}

// Permission returns a user's role on the repository: GitHub's role_name (so that triage and
// maintain are seen as such; the legacy permission field says read and write for them), the
// legacy permission for a custom role, and "none" for someone who is not a collaborator.
func Permission(ctx context.Context, gh *github.Client, pr review.PullRequest, user string) (string, error) {
	req, err := gh.NewRequest(http.MethodGet, fmt.Sprintf("repos/%s/%s/collaborators/%s/permission", url.PathEscape(pr.Owner), url.PathEscape(pr.Repo), url.PathEscape(user)), nil)
	if err != nil {
		return "", fmt.Errorf("failed to ask the permission of %s on %s: %w", user, pr.Repository(), err)
	}
	var level struct {
		Permission string `json:"permission"`
		RoleName   string `json:"role_name"`
	}
	if _, err := gh.Do(ctx, req, &level); err != nil {
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
			return "none", nil
		}
		return "", fmt.Errorf("failed to get the permission of %s on %s: %w", user, pr.Repository(), err)
	}
	if config.PermissionAtLeast(level.RoleName, "read") {
		return level.RoleName, nil
	}
	if level.Permission == "" {
		return "none", nil
	}
	return level.Permission, nil
}

// CannotDebateMarker marks the one comment that says why a pull request cannot be debated.
const CannotDebateMarker = "<!-- debatebot:cannot-debate -->"

// cannotDebate says once, edited in place, why the change cannot be debated (binary-only, empty,
// every file ignored), and concludes a neutral check run on its head.
func (r *Runner) cannotDebate(ctx context.Context, pub *review.Publisher, job *Job, ie *review.InputError) error {
	msg := fmt.Sprintf("debatebot cannot debate this pull request: %v", ie.Problem)
	if err := retry(ctx, 3, func() error { return pub.Upsert(ctx, CannotDebateMarker, msg) }); err != nil {
		return err
	}
	if job.HeadSHA == "" {
		return nil
	}
	key := "cannot-debate/" + job.PR.String() + "@" + job.HeadSHA
	if id, err := r.Store.CheckRun(ctx, key); err == nil {
		pub.UseCheckRun(id)
	}
	if err := retry(ctx, 3, func() error { return pub.NeutralCheck(ctx, job.HeadSHA, "Nothing to debate", msg) }); err != nil {
		return err
	}
	return r.Store.SaveCheckRun(ctx, key, pub.CheckRunID())
}

// LoadRepoConfig reads .github/debatebot.yml from the base branch, so that a pull request cannot
// change the rules that judge it. A missing file means the defaults.
func LoadRepoConfig(ctx context.Context, gh *github.Client, pr review.PullRequest, ref string) (*config.Repo, error) {
	return LoadRepoConfigAt(ctx, gh, pr, ref, config.RepoPath)
}

// LoadRepoConfigAt reads the configuration at path (the Action's config input) from ref; a
// missing file means the defaults.
func LoadRepoConfigAt(ctx context.Context, gh *github.Client, pr review.PullRequest, ref, path string) (*config.Repo, error) {
	var opts *github.RepositoryContentGetOptions
	if ref != "" {
		opts = &github.RepositoryContentGetOptions{Ref: ref}
	}
	fc, _, _, err := gh.Repositories.GetContents(ctx, pr.Owner, pr.Repo, path, opts)
	if err != nil {
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
			return config.Default(), nil
		}
		return nil, fmt.Errorf("failed to read %s of %s: %w", path, pr.Repository(), err)
	}
	content, err := fc.GetContent()
	if err != nil {
		return nil, fmt.Errorf("failed to decode %s of %s: %w", path, pr.Repository(), err)
	}
	return config.Parse([]byte(content), path)
}

// DecidedRow is the store's row of a decided debate: its record, its whole transcript (the last
// checkpoint), usage and the decision's outcome. human is the human decision it waits for, if any.
func DecidedRow(t *toulmin.Transcript, jobID int64, repository string, pr int, trigger, human string) (*store.Debate, error) {
	rec, err := t.Record.YAML()
	if err != nil {
		return nil, err
	}
	cp, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("failed to encode debate %s: %w", t.DebateID, err)
	}
	var reasons, votes []string
	for _, e := range t.Escalations {
		reasons = append(reasons, string(e.Reason))
	}
	for _, v := range t.Record.Votes {
		votes = append(votes, v.Agent+"="+string(v.Vote))
	}
	return &store.Debate{ID: t.DebateID, JobID: jobID, Repository: repository, PRNumber: pr, HeadSHA: t.Record.HeadSHA,
		Trigger: trigger, Protocol: t.Protocol, Decision: string(t.Record.Decision), Phases: len(t.Timeline), Checkpoint: cp, Record: rec,
		Prompt: t.Usage.Prompt, Completion: t.Usage.Completion, CostUSD: t.Usage.CostUSD, StartedAt: t.StartedAt, EndedAt: t.EndedAt,
		ConsensusLevel: string(t.Record.ConsensusLevel), Escalations: strings.Join(reasons, ","), Votes: strings.Join(votes, ","), HumanDecision: human}, nil
}

// ReviewScope is what the inline review of a debate covers beside its transcript: the change
// the debate saw and the head that change was compared with (empty for the whole pull request);
// no change for a debate published from the store; and the review event of debatebot.yml.
type ReviewScope struct {
	Change *change.Change
	Since  string
	Event  string
}

// reviewOnce posts the debate's inline review once: a retry of the publication (a later step
// failed) finds it remembered in memo and does not post it again.
func reviewOnce(ctx context.Context, pub *review.Publisher, t *toulmin.Transcript, how *ReviewScope, memo PublishMemo) error {
	key := fmt.Sprintf("reviewed:%s@%d", t.DebateID, t.EndedAt.UnixNano())
	if memo != nil {
		if id, err := memo.Publication(ctx, pub.PR().String(), key); err == nil && id != 0 {
			return nil
		}
	}
	res, err := pub.Review(ctx, t, review.ReviewOptions{Event: how.Event, Change: how.Change, Since: how.Since, Link: pub.Link})
	if err != nil {
		return err
	}
	zerolog.Ctx(ctx).Info().Int("posted", res.Posted).Int("repeated", res.Repeated).Int("in_body", res.Body).Int("moved", res.Moved).
		Int("resolved", res.Resolved).Msg("Reviewed the pull request's lines.")
	if memo != nil {
		if err := memo.SavePublication(ctx, pub.PR().String(), key, 1); err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not remember that the review was posted.")
		}
	}
	return nil
}

// blobURL is the web address of the files at a commit, from the pull request's page
// ("https://github.com/o/r/pull/5" -> "https://github.com/o/r/blob/<sha>/"), or "".
func blobURL(prURL, sha string) string {
	i := strings.LastIndex(prURL, "/pull/")
	if i < 0 || sha == "" {
		return ""
	}
	return prURL[:i] + "/blob/" + sha + "/"
}
