package pipeline

import (
	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/toulmin"
)

// Agents returns the repository's stakeholders as agents: on the model at OPENAI_BASE_URL
// (DEBATEBOT_MODEL) when OPENAI_API_KEY is set and offline is not asked for, offline otherwise.
func Agents(repo *config.Repo, getenv func(string) string, offline bool) ([]toulmin.Agent, error) {
	key := getenv("OPENAI_API_KEY")
	if key == "" || offline {
		return agents.OfflinePanel(repo.Stakeholders), nil
	}
	return agents.LLMPanel(repo.Stakeholders, repo.LLM.Options(key, getenv("OPENAI_BASE_URL"), getenv("DEBATEBOT_MODEL")))
}

// NewDebate is a debate under a repository's configuration (its panel, ignored paths, weights,
// thresholds, concurrency and model budget) with protocol and agents; trigger says what started it. Its
// subject is the Source's.
func NewDebate(repo *config.Repo, protocol toulmin.Protocol, agents []toulmin.Agent, trigger string) *review.Debate {
	protocol.MaxCostUSD = repo.LLM.MaxCost()
	return &review.Debate{
		Trigger: trigger, Protocol: protocol, Agents: agents, Panel: repo.Panel(), Ignore: repo.Ignore,
		Weights: *repo.Weights, Thresholds: repo.VotingThresholds(), Concurrency: repo.LLM.Concurrency,
	}
}
