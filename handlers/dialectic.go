package handlers

import (
	"context"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/dialectic"
	"github.com/debatebot/debatebot/review/publish"
)

// dialecticSpent counts a model-backed failure or planning debate's tokens in the metrics, and
// says what it cost on its comment.
func (r *Runner) dialecticSpent(rec *dialectic.Record) {
	u := rec.Usage
	if u.Calls == 0 {
		return
	}
	if r.Metrics != nil {
		r.Metrics.Tokens.WithLabelValues("prompt").Add(float64(u.Prompt))
		r.Metrics.Tokens.WithLabelValues("completion").Add(float64(u.Completion))
		r.Metrics.Tokens.WithLabelValues("cached_prompt").Add(float64(u.CachedPrompt))
	}
}

// dialecticAgents are the failure and planning debates' agents: the model's when one is
// configured, the rules otherwise.
func (r *Runner) dialecticAgents(repo *config.Repo) dialectic.Agents {
	if r.Dialectic != nil {
		if a := r.Dialectic(repo); a != nil {
			return a
		}
	}
	return dialectic.Rules{}
}

// dialecticBudget counts a failure or planning debate (key) against its repository's budget,
// and gives its agents: the rules when the day's model tokens are spent (with the reason). ok
// false: skipped, and said so.
func (r *Runner) dialecticBudget(ctx context.Context, pub *publish.Publisher, repo *config.Repo, key, head string) (agents dialectic.Agents, offline string, ok bool, err error) {
	if ok, err := r.startDebate(ctx, pub, repo, key, head); err != nil || !ok {
		return nil, "", false, err
	}
	if offline, err = r.offlineReason(ctx, repo, pub.PR().Repository()); err != nil {
		return nil, "", false, err
	}
	if offline != "" {
		return dialectic.Rules{}, offline, true, nil
	}
	return r.dialecticAgents(repo), "", true, nil
}

// dialecticSpentBudget counts a failure or planning debate's tokens against its repository's
// day, and returns its record's text with the reason it was held by rules, if the budget was.
func (r *Runner) dialecticSpentBudget(ctx context.Context, repository, key string, rec *dialectic.Record, offline string) string {
	r.spend(ctx, repository, key, rec.Usage.Prompt, rec.Usage.Completion)
	md := rec.Markdown()
	if offline != "" {
		md += "\n> **Held by rules.** " + offline + "\n"
	}
	return md
}
