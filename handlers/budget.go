package handlers

import (
	"context"
	"fmt"
	"time"

	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/publish"

	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
)

// RepoBudget is each repository's budget where its debatebot.yml sets none (the server's
// DEBATEBOT_REPO_DEBATES_PER_HOUR and DEBATEBOT_REPO_TOKENS_PER_DAY); 0 is no limit.
type RepoBudget struct {
	DebatesPerHour int
	TokensPerDay   int64
}

// BudgetMarker marks the one comment that says a debate was skipped because the repository's
// debates for the hour were spent.
const BudgetMarker = "<!-- debatebot:budget -->"

// budgetNoted is the publication memo of the budget comment: the time (Unix seconds) it said the
// next debate could start, until which it is not written again.
const budgetNoted = "budget-noted"

// budgetWindow is the window of budget.debates_per_hour.
const budgetWindow = time.Hour

// startDebate counts a debate (key: its job's, so that a retried job counts once) against its
// repository's hourly budget, whatever started it. Over the budget it reports false, after
// saying so on the pull request or issue (head: the commit to conclude a neutral check run on).
func (r *Runner) startDebate(ctx context.Context, pub *publish.Publisher, repo *config.Repo, key, head string) (bool, error) {
	if r.Store == nil {
		return true, nil
	}
	limit := repo.Budget.DebatesPerHourOr(r.Budget.DebatesPerHour)
	pr := pub.PR()
	ok, next, err := r.Store.StartDebate(ctx, pr.Repository(), key, limit, r.now(), budgetWindow)
	if err != nil || ok {
		return ok, err
	}
	r.Metrics.refused("budget")
	zerolog.Ctx(ctx).Warn().Int("debates_per_hour", limit).Time("next", next).Msg("Skipped a debate: the repository's debates for the hour are spent.")
	return false, r.budgetSpent(ctx, pub, head, limit, next)
}

// budgetSpent says why a debate was skipped and when one can run again: one comment, written
// once until that time (not on every push), and a neutral check run on the skipped head.
func (r *Runner) budgetSpent(ctx context.Context, pub *publish.Publisher, head string, limit int, next time.Time) error {
	msg := fmt.Sprintf("debatebot skipped a debate here: this repository's budget of %d debates an hour, whatever starts them (pushes, labels, commands, CI failures, planning), is spent (`budget.debates_per_hour` in `%s`, or the server's default). The next debate can start after %s; push again or comment `/debate` then.",
		limit, config.RepoPath, next.UTC().Format("15:04 MST, 2 January 2006"))
	key := pub.PR().String()
	if until, err := r.Store.Publication(ctx, key, budgetNoted); err != nil || r.now().Unix() >= until {
		if err := publish.Retry(ctx, 3, func() error { return pub.Upsert(ctx, BudgetMarker, msg) }); err != nil {
			return err
		}
		if err := r.Store.SavePublication(ctx, key, budgetNoted, next.Unix()); err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not remember that the budget was noted.")
		}
	}
	if head == "" {
		return nil
	}
	return publish.Retry(ctx, 3, func() error {
		return pub.NeutralCheck(ctx, head, "Debate skipped: the repository's budget is spent", msg)
	})
}

// offlineReason says why a debate must have the offline agents although a model may be
// configured: its repository's model tokens for the UTC day are spent. "" means the model's.
func (r *Runner) offlineReason(ctx context.Context, repo *config.Repo, repository string) (string, error) {
	limit := repo.Budget.ModelTokensPerDayOr(r.Budget.TokensPerDay)
	if r.Store == nil || limit <= 0 {
		return "", nil
	}
	spent, err := r.Store.TokensSpent(ctx, repository, r.now())
	if err != nil || spent < limit {
		return "", err
	}
	zerolog.Ctx(ctx).Warn().Int64("tokens", spent).Int64("model_tokens_per_day", limit).Msg("The repository's model tokens for the day are spent: the debate runs offline.")
	return fmt.Sprintf("This repository's model budget for the day (`budget.model_tokens_per_day`: %d tokens) is spent (%d used), so every agent argued by rules from the analyzers' evidence; model-backed agents are back after %s.",
		limit, spent, store.NextDay(r.now()).Format("15:04 MST, 2 January 2006")), nil
}

// budgetedAgents are a debate's agents: the configured ones (with trust), or the offline panel
// when the repository's model tokens for the day are spent, with the reason.
func (r *Runner) budgetedAgents(ctx context.Context, job *Job, repo *config.Repo) ([]toulmin.Agent, string, error) {
	repo = r.withTrust(ctx, repo, job.PR.Repository())
	offline, err := r.offlineReason(ctx, repo, job.PR.Repository())
	if err != nil {
		return nil, "", err
	}
	if offline != "" {
		return agents.OfflinePanel(repo.Stakeholders), offline, nil
	}
	agents, err := r.Agents(repo)
	return agents, "", err
}

// tokensKey names one debate's tokens in the store: its id and start, the same across the
// checkpoints and the resumption of one debate, another for a debate of the same id held again.
func tokensKey(t *toulmin.Transcript) string {
	return fmt.Sprintf("%s@%d", t.DebateID, t.StartedAt.UnixNano())
}

// spend records the tokens a debate spent so far against its repository's day.
func (r *Runner) spend(ctx context.Context, repository, key string, prompt, completion int64) {
	if r.Store == nil || prompt+completion == 0 {
		return
	}
	if err := r.Store.SpendTokens(context.WithoutCancel(ctx), repository, key, prompt+completion, r.now()); err != nil {
		zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not count the debate's tokens against the repository's budget.")
	}
}

// countTokens counts, at every checkpoint of the debate, the tokens it spent so far: a debate
// cut short still counts what it spent.
func (r *Runner) countTokens(d *review.Debate) {
	if r.Store == nil || d.Checkpoint == nil {
		return
	}
	next := d.Checkpoint
	d.Checkpoint = func(ctx context.Context, t *toulmin.Transcript) error {
		r.spend(ctx, d.Repository, tokensKey(t), t.Usage.Prompt, t.Usage.Completion)
		return next(ctx, t)
	}
}

// spent closes a debate's budget: its tokens are counted, and a debate that ran offline
// because of the budget says so in its transcript, and so in everything published from it.
func (r *Runner) spent(ctx context.Context, d *review.Debate, t *toulmin.Transcript, offline string) {
	r.spend(ctx, d.Repository, tokensKey(t), t.Usage.Prompt, t.Usage.Completion)
	if offline != "" && t.Offline {
		t.OfflineReason = offline
	}
}

// withTrust fills each stakeholder's trust from what human decisions taught in this repository,
// unless the configuration sets it; trust above 1.2 makes a stakeholder senior.
func (r *Runner) withTrust(ctx context.Context, repo *config.Repo, repository string) *config.Repo {
	if r.Store == nil {
		return repo
	}
	c := *repo
	c.Stakeholders = append([]agents.Perspective(nil), repo.Stakeholders...)
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
