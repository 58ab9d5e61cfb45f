package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// ConfigErrorMarker marks the one comment that explains a broken .github/debatebot.yml.
const ConfigErrorMarker = "<!-- debatebot:config-error -->"

// AgentFactory builds the agents of one debate from the repository's stakeholders.
type AgentFactory func(repo *config.Repo) ([]toulmin.Agent, error)

// Runner holds a job's debate: it authorises commands, reads the repository's configuration from
// the base branch, reads the change, runs the debate and publishes it.
type Runner struct {
	Clients githubapp.ClientCreator
	// Store keeps checkpoints and decisions, so that a debate cut short resumes.
	Store *store.Store
	// Bot is the App's login, "<slug>[bot]".
	Bot     string
	Agents  AgentFactory
	Metrics *Metrics
	// Clock is time.Now except in tests.
	Clock func() time.Time
	// Republish are the waits before publishing a finished debate again when GitHub kept failing
	// (DefaultRepublish when nil): the debate is not run again, and not lost.
	Republish []time.Duration

	mu       sync.Mutex
	commands map[string][]time.Time // PR -> debates started by commands
	retries  sync.WaitGroup
}

func (r *Runner) now() time.Time {
	if r.Clock != nil {
		return r.Clock()
	}
	return time.Now()
}

// Run implements RunFunc.
func (r *Runner) Run(ctx context.Context, job *Job) error {
	start := r.now()
	err := r.run(ctx, job)
	r.Metrics.job(job, err, time.Since(start))
	return err
}

func (r *Runner) run(ctx context.Context, job *Job) error {
	log := zerolog.Ctx(ctx)
	gh, err := r.Clients.NewInstallationClient(job.Installation)
	if err != nil {
		return fmt.Errorf("failed to create a client for installation %d: %w", job.Installation, err)
	}
	pub := r.publisher(ctx, gh, job)
	switch job.Kind {
	case KindHumanReview:
		if r.Store != nil {
			if d, err := r.Store.LatestDecided(ctx, job.PR.Repository(), job.PR.Number); err == nil && d.HumanDecision == "" {
				if err := r.Store.SetHumanDecision(ctx, d.ID, "pending"); err != nil {
					return err
				}
			}
		}
		return pub.Comment(ctx, fmt.Sprintf("No debate is running on this pull request; @%s asked for human review, and a human decides (`/human-review approve` or `/human-review request-changes`).", job.Requester))
	case KindHumanDecision:
		return r.humanDecision(ctx, gh, pub, job)
	}

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
	if job.Kind == KindReview && job.Requester == "" {
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
		return pub.Comment(ctx, fmt.Sprintf("debatebot: %v", err))
	}
	agents, err := r.Agents(r.withTrust(ctx, repo, job.PR.Repository()))
	if err != nil {
		return err
	}
	d := &review.Debate{
		Repository: job.PR.Repository(), PRNumber: job.PR.Number, Trigger: job.Trigger,
		Protocol: protocol, Agents: agents, Ignore: repo.Ignore, Weights: *repo.Weights,
		Thresholds: repo.VotingThresholds(), Concurrency: repo.LLM.Concurrency, Clock: r.Clock,
	}
	if job.Kind == KindDesign {
		d.Question = strings.TrimSpace(job.Title + "\n\n" + job.Body)
	} else {
		prev, carried, since, err := r.since(ctx, gh, pub, job, meta, repo)
		if err != nil {
			return err
		}
		if since != nil {
			d.Change = since
			d.Carry = func(t *toulmin.Transcript) { review.ApplyCarried(t, prev, carried) }
		} else if d.Change, err = review.ReadPullRequest(ctx, gh, job.PR, meta, repo.Ignore, review.DefaultMaxDiffBytes); err != nil {
			var ie *review.InputError
			if errors.As(err, &ie) {
				return pub.Comment(ctx, fmt.Sprintf("debatebot cannot debate this pull request: %v", ie.Problem))
			}
			return err
		}
		r.startCheck(ctx, pub, d)
	}
	if meta != nil {
		pub.DetailsURL = meta.GetHTMLURL()
	}
	r.durable(ctx, d, job)
	// The transcript comment shows which phase runs, edited at most once per phase.
	d.Observer = func(e toulmin.Event) {
		if e.Kind != toulmin.EventPhaseStarted || e.Phase.Phase == toulmin.PhaseDecision {
			return
		}
		if err := pub.Upsert(ctx, review.TranscriptMarker, review.ProgressComment(e.Transcript, e.Phase.Phase)); err != nil {
			log.Warn().Err(err).Msg("Could not show the debate's progress.")
		}
	}
	t, err := d.Run(ctx)
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, ErrSuperseded):
		return cause // the newer head's debate publishes
	case err != nil && ctx.Err() != nil:
		return cause
	case err != nil:
		return err
	}
	logger := log.With().Str("debate_id", t.DebateID).Logger()
	r.Metrics.debate(t)
	if errors.Is(cause, toulmin.ErrHumanReview) {
		// The debate stopped for a human: its state is still kept and published, on a context of
		// its own.
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		ctx = pctx
	}
	if r.Store != nil {
		rec, err := t.Record.YAML()
		if err != nil {
			return err
		}
		cp, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("failed to encode debate %s: %w", t.DebateID, err)
		}
		var reasons, votes []string
		for _, e := range t.Escalations {
			reasons = append(reasons, string(e.Reason))
		}
		for _, v := range t.Record.Votes {
			votes = append(votes, v.Agent+"="+string(v.Vote))
		}
		human := ""
		if errors.Is(cause, toulmin.ErrHumanReview) {
			human = "pending"
		}
		if err := r.Store.FinishDebate(ctx, &store.Debate{ID: t.DebateID, Repository: d.Repository, PRNumber: d.PRNumber, HeadSHA: t.Record.HeadSHA,
			Trigger: d.Trigger, Protocol: t.Protocol, Decision: string(t.Record.Decision), Phases: len(t.Timeline), Checkpoint: cp, Record: rec,
			Prompt: t.Usage.Prompt, Completion: t.Usage.Completion, StartedAt: t.StartedAt, EndedAt: t.EndedAt,
			ConsensusLevel: string(t.Record.ConsensusLevel), Escalations: strings.Join(reasons, ","), Votes: strings.Join(votes, ","), HumanDecision: human}); err != nil {
			return err
		}
	}
	return r.publish(logger.WithContext(ctx), pub, t)
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

// GiveUp reports a job that failed for good where users look: on the pull request's check run.
func (r *Runner) GiveUp(ctx context.Context, job *Job, cause error) {
	r.Metrics.gaveUp(job)
	if job.Kind != KindReview || job.HeadSHA == "" {
		return
	}
	gh, err := r.Clients.NewInstallationClient(job.Installation)
	if err != nil {
		return
	}
	if err := review.NewPublisher(gh, job.PR).FailCheck(ctx, job.HeadSHA, cause); err != nil {
		zerolog.Ctx(ctx).Error().Err(err).Msg("Could not report the failed debate on the check run.")
	}
}

// TrustRate is how far one human decision moves an agent's trust toward its agreement.
const TrustRate = 0.3

// withTrust fills each stakeholder's trust from what human decisions taught in this repository,
// unless the configuration sets it; trust above 1.2 makes a stakeholder senior.
func (r *Runner) withTrust(ctx context.Context, repo *config.Repo, repository string) *config.Repo {
	if r.Store == nil {
		return repo
	}
	c := *repo
	c.Stakeholders = append([]review.Perspective(nil), repo.Stakeholders...)
	for i := range c.Stakeholders {
		if c.Stakeholders[i].Trust != 0 {
			continue
		}
		if v, err := r.Store.Trust(ctx, repository, c.Stakeholders[i].Name); err == nil {
			c.Stakeholders[i].Trust = v
		}
	}
	return &c
}

// humanDecision records a human's decision. After /human-review, each agent's trust in the
// repository moves toward its agreement with the human; a merge or close of a pull request whose
// debate was not escalated counts for the reversal rate.
func (r *Runner) humanDecision(ctx context.Context, gh *github.Client, pub *review.Publisher, job *Job) error {
	if r.Store == nil {
		return nil
	}
	if job.Requester != "" {
		perm, _, err := gh.Repositories.GetPermissionLevel(ctx, job.PR.Owner, job.PR.Repo, job.Requester)
		if err != nil || !config.PermissionAtLeast(perm.GetPermission(), "maintain") {
			r.Metrics.refused("permission")
			return pub.Comment(ctx, fmt.Sprintf("@%s: only maintainers decide after /human-review. Nothing was recorded.", job.Requester))
		}
	}
	human := job.Protocol
	d, err := r.Store.PendingHumanDecision(ctx, job.PR.Repository(), job.PR.Number)
	if errors.Is(err, store.ErrNotFound) {
		if job.Requester != "" {
			return pub.Comment(ctx, "No debate on this pull request waits for a human decision; comment `/human-review` first.")
		}
		if d, err := r.Store.LatestDecided(ctx, job.PR.Repository(), job.PR.Number); err == nil && d.HumanDecision == "" {
			return r.Store.SetHumanDecision(ctx, d.ID, human)
		}
		return nil
	}
	if err != nil {
		return err
	}
	var lines []string
	for _, v := range strings.Split(d.Votes, ",") {
		agent, vote, ok := strings.Cut(v, "=")
		if !ok {
			continue
		}
		before, err := r.Store.Trust(ctx, job.PR.Repository(), agent)
		if err != nil {
			return err
		}
		after, err := r.Store.LearnTrust(ctx, job.PR.Repository(), agent, store.Agrees(vote, human), TrustRate)
		if err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("- %s voted %s: trust %.2f → %.2f", agent, vote, before, after))
	}
	if err := r.Store.SetHumanDecision(ctx, d.ID, human); err != nil {
		return err
	}
	if job.Requester == "" {
		return nil
	}
	return pub.Comment(ctx, fmt.Sprintf("Human decision on debate `%s`: **%s**. The agents learn from it:\n\n%s", d.ID, strings.ReplaceAll(human, "_", " "), strings.Join(lines, "\n")))
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
	if err := pub.StartCheck(ctx, d.Change.HeadSHA); err != nil {
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
func (r *Runner) durable(ctx context.Context, d *review.Debate, job *Job) {
	if r.Store == nil {
		return
	}
	id := d.ID()
	if prior, err := r.Store.Debate(ctx, id); err == nil && prior.Decision == "" && len(prior.Checkpoint) > 0 {
		var t toulmin.Transcript
		if err := json.Unmarshal(prior.Checkpoint, &t); err == nil {
			d.Prior = &t
			zerolog.Ctx(ctx).Info().Str("debate_id", id).Int("phases", len(t.Timeline)).Msg("Resuming a debate from its checkpoint.")
		}
	}
	d.Checkpoint = func(ctx context.Context, t *toulmin.Transcript) error {
		cp, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("failed to encode the checkpoint of %s: %w", t.DebateID, err)
		}
		// Kept even while the debate stops (human review, shutdown): it is what a resume needs.
		return r.Store.SaveCheckpoint(context.WithoutCancel(ctx), &store.Debate{ID: t.DebateID, Repository: d.Repository, PRNumber: d.PRNumber, HeadSHA: job.HeadSHA,
			Trigger: d.Trigger, Protocol: t.Protocol, Phases: len(t.Timeline), Checkpoint: cp, StartedAt: t.StartedAt})
	}
}

// since returns what changed since the last debated head of the pull request, with the earlier
// required changes carried forward, when a new push follows a debate: users should not pay for,
// nor read again, a debate of code that was already debated. nil means debate the whole change.
func (r *Runner) since(ctx context.Context, gh *github.Client, pub *review.Publisher, job *Job, meta *github.PullRequest, repo *config.Repo) (*voting.Record, []toulmin.Carried, *review.Change, error) {
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
	review.FillContents(ctx, gh, job.PR, c)
	return prev, review.CarryForward(prev, c), c, nil
}

// DefaultRepublish are the waits before publishing a finished debate again.
var DefaultRepublish = []time.Duration{30 * time.Second, 2 * time.Minute, 10 * time.Minute}

// publish writes the debate; when GitHub keeps failing, it tries again later on its own context,
// with the same transcript, and logs each failure with the delivery id.
func (r *Runner) publish(ctx context.Context, pub *review.Publisher, t *toulmin.Transcript) error {
	err := r.publishOnce(ctx, pub, t)
	if err == nil || ctx.Err() != nil {
		return err
	}
	waits := r.Republish
	if waits == nil {
		waits = DefaultRepublish
	}
	log := *zerolog.Ctx(ctx)
	r.retries.Add(1)
	go func() {
		defer r.retries.Done()
		bg := log.WithContext(context.WithoutCancel(ctx))
		for i, wait := range waits {
			time.Sleep(wait)
			if err := r.publishOnce(bg, pub, t); err != nil {
				log.Error().Err(err).Int("attempt", i+2).Msg("Publishing the debate failed again.")
				continue
			}
			log.Info().Int("attempt", i+2).Msg("Published the debate after GitHub recovered.")
			return
		}
		log.Error().Msg("Gave up publishing the debate; comment /debate to run it again.")
	}()
	return err
}

// WaitRepublish blocks until every pending republication has finished (tests, shutdown).
func (r *Runner) WaitRepublish() { r.retries.Wait() }

// publishOnce writes the transcript, the decision, the check run and the escalation label; each
// write is tried three times with backoff.
func (r *Runner) publishOnce(ctx context.Context, pub *review.Publisher, t *toulmin.Transcript) error {
	md, err := review.Markdown(t, review.RenderOptions{Marker: true})
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
		func() error { return pub.FinishCheck(ctx, t) },
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

func retry(ctx context.Context, attempts int, f func() error) error {
	var err error
	delay := 200 * time.Millisecond
	for i := 0; i < attempts; i++ {
		if err = f(); err == nil {
			return nil
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

// authorise checks a command's requester against command_permission and the per-PR hourly
// bound; a refusal is answered with a short comment and nothing is spent.
func (r *Runner) authorise(ctx context.Context, gh *github.Client, pub *review.Publisher, job *Job, repo *config.Repo) (bool, error) {
	perm, _, err := gh.Repositories.GetPermissionLevel(ctx, job.PR.Owner, job.PR.Repo, job.Requester)
	have := "none"
	if err == nil {
		have = perm.GetPermission()
	} else {
		var er *github.ErrorResponse
		if !errors.As(err, &er) || er.Response == nil || er.Response.StatusCode != http.StatusNotFound {
			return false, fmt.Errorf("failed to get the permission of %s on %s: %w", job.Requester, job.PR.Repository(), err)
		}
	}
	if !config.PermissionAtLeast(have, repo.CommandPermission) {
		r.Metrics.refused("permission")
		return false, pub.Comment(ctx, fmt.Sprintf("@%s: debatebot commands need %s permission on this repository; you have %s. Nothing was started.", job.Requester, repo.CommandPermission, have))
	}
	if job.Kind == KindReview {
		r.mu.Lock()
		if r.commands == nil {
			r.commands = map[string][]time.Time{}
		}
		key := job.PR.String()
		now := r.now()
		var recent []time.Time
		for _, t := range r.commands[key] {
			if now.Sub(t) < time.Hour {
				recent = append(recent, t)
			}
		}
		over := len(recent) >= *repo.MaxDebatesPerHour
		if !over {
			recent = append(recent, now)
		}
		r.commands[key] = recent
		r.mu.Unlock()
		if over {
			r.Metrics.refused("rate")
			return false, pub.Comment(ctx, fmt.Sprintf("@%s: this pull request already had %d debates started by commands in the last hour (the limit is max_debates_per_hour). Try again later.", job.Requester, *repo.MaxDebatesPerHour))
		}
	}
	return true, nil
}

// LoadRepoConfig reads .github/debatebot.yml from the base branch, so that a pull request cannot
// change the rules that judge it. A missing file means the defaults.
func LoadRepoConfig(ctx context.Context, gh *github.Client, pr review.PullRequest, ref string) (*config.Repo, error) {
	var opts *github.RepositoryContentGetOptions
	if ref != "" {
		opts = &github.RepositoryContentGetOptions{Ref: ref}
	}
	fc, _, _, err := gh.Repositories.GetContents(ctx, pr.Owner, pr.Repo, config.RepoPath, opts)
	if err != nil {
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
			return config.Default(), nil
		}
		return nil, fmt.Errorf("failed to read %s of %s: %w", config.RepoPath, pr.Repository(), err)
	}
	content, err := fc.GetContent()
	if err != nil {
		return nil, fmt.Errorf("failed to decode %s of %s: %w", config.RepoPath, pr.Repository(), err)
	}
	return config.Parse([]byte(content), config.RepoPath)
}
