package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/pipeline"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/review/pull"
	"github.com/debatebot/debatebot/toulmin"
)

// Action is one run of the action on the pull request of its workflow's event.
type Action struct {
	env    *actionEnv
	ev     *actionEvent
	gh     *github.Client
	pr     review.PullRequest
	stdout io.Writer
	getenv func(string) string
	// noComments is set once GitHub refused a comment to the token: the job summary carries the
	// debate instead.
	noComments bool
}

// New reads the workflow's environment and event and prepares the run; a nil Action (and a
// notice on stdout) means the event is not debated. version is the client's.
func New(stdout io.Writer, getenv func(string) string, version string) (*Action, error) {
	env, err := readActionEnv(getenv)
	if err != nil {
		return nil, err
	}
	ev, skip, err := readActionEvent(env.event, env.eventPath)
	if err != nil {
		return nil, err
	}
	if skip != "" {
		Command(stdout, "notice", "Nothing to debate: "+skip+".")
		return nil, nil
	}
	if ev.bot && !slices.Contains(strings.Split(getenv("DEBATEBOT_ALLOWED_BOTS"), ","), ev.sender) {
		Command(stdout, "notice", fmt.Sprintf("Nothing to debate: %s was sent by the bot %s (list it in allowed-bots to debate it).", ev.trigger, ev.sender))
		return nil, nil
	}
	if getenv("GITHUB_ACTIONS") == "true" {
		inContainer(env.workspace)
	}
	gh, err := actionClient(env.apiURL, env.token, version)
	if err != nil {
		return nil, err
	}
	owner, name, _ := strings.Cut(env.repository, "/")
	return &Action{env: env, ev: ev, gh: gh, pr: review.PullRequest{Owner: owner, Repo: name, Number: ev.number}, stdout: stdout, getenv: getenv}, nil
}

func (a *Action) notice(kind, format string, args ...any) {
	Command(a.stdout, kind, a.redact(fmt.Sprintf(format, args...)))
}

// Review admits the event's pull request under the configuration of its base branch and returns
// its review: the debate, the pull request (the checkout, else the API) as its source, and the
// pull request and the job summary as its publisher. A nil review means nothing is debated.
func (a *Action) Review(ctx context.Context) (*pipeline.Review, error) {
	meta, _, err := a.gh.PullRequests.Get(ctx, a.pr.Owner, a.pr.Repo, a.pr.Number)
	if err != nil {
		return nil, fmt.Errorf("failed to get pull request %s: %w", a.pr, err)
	}
	head := a.ev.headSHA
	if head == "" {
		head = meta.GetHead().GetSHA()
	}
	pub := publish.NewPublisher(a.gh, a.pr)
	pub.Bot, pub.DetailsURL, pub.Link = a.env.bot, meta.GetHTMLURL(), a.env.runURL
	repo, ok, err := a.admit(ctx, pub, meta)
	if err != nil || !ok {
		return nil, err
	}
	d, err := a.debate(ctx, pub, repo)
	if err != nil {
		return nil, err
	}
	return &pipeline.Review{
		Debate:    d,
		Source:    &source{a: a, pub: pub, meta: meta, head: head, ignore: repo.Ignore},
		Publisher: &publisher{a: a, pub: pub, head: head, event: repo.GitHubReviewEvent()},
	}, nil
}

// admit reads the configuration of the base branch, so that a pull request cannot change the
// rules that judge it (a broken file is explained in one comment), and decides whether the event
// is debated: a command's requester needs command_permission (a command admitted is acknowledged
// with a reaction), and a pull_request event must be one the configuration debates.
func (a *Action) admit(ctx context.Context, pub *publish.Publisher, meta *github.PullRequest) (*config.Repo, bool, error) {
	repo, err := pull.LoadRepoConfigAt(ctx, review.NewGitHub(a.gh), a.pr, meta.GetBase().GetRef(), a.env.configPath)
	if err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			a.comment(ctx, pub, func() error {
				return pub.Upsert(ctx, pull.ConfigErrorMarker, fmt.Sprintf("debatebot cannot run: `%s` is not valid.\n\n%s\n\nFix the file on the base branch and run the workflow again.",
					a.env.configPath, "- "+strings.Join(ce.Problems, "\n- ")))
			})
		}
		return nil, false, err
	}
	if a.ev.requester != "" {
		have, err := pull.Permission(ctx, review.NewGitHub(a.gh), a.pr, a.ev.requester)
		if err != nil {
			return nil, false, err
		}
		if !config.PermissionAtLeast(have, repo.CommandPermission) {
			a.notice("notice", "@%s has %s permission; /debate needs %s (command_permission). Nothing was started.", a.ev.requester, have, repo.CommandPermission)
			return nil, false, a.comment(ctx, pub, func() error {
				return pub.Comment(ctx, fmt.Sprintf("@%s: debatebot commands need %s permission on this repository; you have %s. Nothing was started.", a.ev.requester, repo.CommandPermission, have))
			})
		}
		if _, _, err := a.gh.Reactions.CreateIssueCommentReaction(ctx, a.pr.Owner, a.pr.Repo, a.ev.commentID, "eyes"); err != nil {
			a.notice("warning", "Could not react to the command: %v", err)
		}
		return repo, true, nil
	}
	if meta.GetDraft() && !repo.Triggers.Drafts {
		a.notice("notice", "Nothing to debate: %s is a draft (triggers.drafts is off).", a.pr)
		return nil, false, nil
	}
	if a.ev.action != "labeled" && !slices.Contains(repo.Triggers.PullRequest, a.ev.action) {
		a.notice("notice", "Nothing to debate: the repository does not debate %s (triggers.pull_request).", a.ev.trigger)
		return nil, false, nil
	}
	return repo, true, nil
}

// debate configures the pull request's debate: the protocol (a /debate argument the
// configuration does not know is answered in a comment) and the agents.
func (a *Action) debate(ctx context.Context, pub *publish.Publisher, repo *config.Repo) (*review.Debate, error) {
	protocol, err := repo.DebateProtocol(a.ev.protocol)
	if err != nil {
		a.comment(ctx, pub, func() error { return pub.Comment(ctx, fmt.Sprintf("debatebot: %v", err)) })
		return nil, &pipeline.UsageError{Msg: err.Error()}
	}
	agents, err := pipeline.Agents(repo, a.getenv, false)
	if err != nil {
		return nil, err
	}
	d := pipeline.NewDebate(repo, protocol, agents, a.ev.trigger)
	d.Repository, d.PRNumber = a.pr.Repository(), a.pr.Number
	return d, nil
}

// source reads the pull request's change: what a push changed since the last debated head, else
// the whole change.
type source struct {
	a      *Action
	pub    *publish.Publisher
	meta   *github.PullRequest
	head   string
	ignore []string
}

// Read implements pipeline.Source.
func (s *source) Read(ctx context.Context) (*pipeline.Subject, error) {
	prev, change, err := s.a.since(ctx, s.pub, s.meta, s.head, s.ignore)
	if err != nil {
		return nil, err
	}
	if change == nil {
		change, err = s.a.change(ctx, s.meta, s.head, s.ignore)
		return &pipeline.Subject{Change: change}, err
	}
	// What the earlier debate required is carried: resolved where the push changed its line,
	// still open otherwise, as the App does. The inline review covers what the debate saw.
	carried := review.CarryForward(prev, change)
	return &pipeline.Subject{Change: change, Since: prev.HeadSHA, Carry: func(t *toulmin.Transcript) { review.ApplyCarried(t, prev, carried) }}, nil
}
