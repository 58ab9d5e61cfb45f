package handlers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/review/pull"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/voting"
)

// help answers /help and /debate help with one comment: the commands, who may use each (the
// repository's configuration), and the protocol and panel that configuration gives. Anyone may
// ask: the answer costs no debate and says nothing the configuration file does not.
func (r *Runner) help(ctx context.Context, gh commandGitHub, pub *publish.Publisher, job *Job) error {
	// The answer is within answerLimits: the configuration is read only for a comment.
	return r.answer(ctx, gh, pub, job, store.AnswerHelp, func() (string, error) { return r.helpText(ctx, gh, job) })
}

// helpText reads the configuration the commands are judged by and writes the answer to /help.
func (r *Runner) helpText(ctx context.Context, gh commandGitHub, job *Job) (string, error) {
	ref, isPR, err := commandBase(ctx, gh, job)
	if err != nil {
		return "", err
	}
	repo, err := pull.LoadRepoConfig(ctx, gh, job.PR, ref)
	broken := ""
	var ce *config.Error
	if errors.As(err, &ce) {
		// Commands are judged by the defaults then (see commandConfig); say why.
		broken, repo, err = strings.Join(ce.Problems, "; "), config.Default(), nil
	}
	if err != nil {
		return "", err
	}
	return HelpText(repo, isPR, ref, broken), nil
}

// HelpText is the answer to /help. ref is the branch the configuration was read from (empty:
// the default branch); broken names the problems of a configuration file that cannot be used.
func HelpText(repo *config.Repo, isPR bool, ref, broken string) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	where := "this pull request"
	if !isPR {
		where = "this issue"
	}
	w("**debatebot commands** on %s (a comment whose first line is the command):\n\n| Command | What it does | Who may use it |\n|---|---|---|\n", where)
	debate := "debates the pull request's head again, whole"
	if !isPR {
		debate = "debates the issue's title and body as a design question"
	}
	w("| `/debate [fast-track\\|standard\\|extended]` | %s, with the protocol named or the configured one | `%s` permission or more; at most %d per hour on one pull request or issue |\n",
		debate, repo.CommandPermission, *repo.MaxDebatesPerHour)
	w("| `/debate continue`, `/debate guide TEXT`, `/debate end` | answers a debate paused at a checkpoint: runs the next round, with your guidance, or ends the rounds | `%s` permission or more |\n", repo.CommandPermission)
	w("| `/human-review` | stops the debates, publishes what was said, and leaves the decision to a human | `%s` permission or more |\n", repo.HumanReviewPermission)
	w("| `/human-review approve`, `/human-review request-changes` | the human decision after `/human-review`, final | `maintain` permission or more |\n")
	w("| `/debate plan TEXT` | a planning debate over TEXT: an advocate and a critic argue, then the plan is to PROCEED, MODIFY or ESCALATE; `stakes=high` marks it high-stakes | `%s` permission or more; counts toward the hourly bound |\n", repo.CommandPermission)
	if isPR {
		w("| `/debate fresh` | resets the failure counts of this pull request's CI tasks (failure debates) | `%s` permission or more |\n", repo.CommandPermission)
	}
	w("| `/help`, `/debate help` | this answer | anyone; by comment %d times an hour per person, then by a reaction |\n", MaxHelpComments)

	source := fmt.Sprintf("`%s`", config.RepoPath)
	if ref != "" {
		source += fmt.Sprintf(" on `%s`", ref)
	}
	if broken != "" {
		w("\n**Configuration:** %s is not valid (%s): commands are judged by the defaults, and no debate runs until it is fixed. The defaults:\n\n", source, broken)
	} else {
		w("\n**Configuration** (%s, defaults where it is silent):\n\n", source)
	}
	p, err := repo.DebateProtocol("")
	if err != nil {
		w("- Protocol: %s (%v)\n", repo.Protocol, err)
	} else {
		phases := make([]string, 0, len(p.Phases))
		for _, ph := range p.Phases {
			phases = append(phases, ph.Kind.Title())
		}
		w("- Protocol: **%s**: %s", p.Name, strings.Join(phases, " → "))
		if p.Loop != nil {
			w(" (rebuttal rounds looped, at most %d)", p.Loop.MaxRounds)
		}
		w("\n")
		if p.Checkpoints {
			w("- Checkpoints: after each round, waiting %s for an answer\n", p.CheckpointWait())
		}
	}
	if repo.Depth != "" {
		w("- Depth: %s\n", repo.Depth)
	}
	th := repo.VotingThresholds()
	w("- Decision: weighted vote, strong consensus above %.2f, consensus above %.2f; review comments posted as `%s`\n", th.Strong, th.Consensus, repo.GitHubReviewEvent())
	var seated, catalog []string
	for _, s := range repo.Stakeholders {
		name := fmt.Sprintf("%s (%s)", s.Name, strings.ReplaceAll(string(s.Role), "_", " "))
		if repo.Panel() == agents.PanelConfigured || s.Role != voting.RoleStakeholder && s.Role != voting.RoleSeniorStakeholder {
			seated = append(seated, name)
		} else {
			catalog = append(catalog, s.Name)
		}
	}
	if repo.Panel() == agents.PanelConfigured {
		w("- Panel: the `stakeholders:` list, %s\n", strings.Join(seated, ", "))
	} else {
		w("- Panel: the moderator seats 2 to 4 of %s for each change; always seated: %s\n", strings.Join(catalog, ", "), strings.Join(seated, ", "))
	}
	if len(repo.Ignore) > 0 {
		w("- Ignored paths: %s\n", "`"+strings.Join(repo.Ignore, "`, `")+"`")
	}
	return b.String()
}
