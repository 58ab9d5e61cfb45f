package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/handlers"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// ActionBot is the login the workflow token (GITHUB_TOKEN) comments as: the publisher edits only
// its comments. DEBATEBOT_BOT_LOGIN names another bot (an App's token given as github-token).
const ActionBot = "github-actions[bot]"

// actionEnv is what a workflow gives the action.
type actionEnv struct {
	event, eventPath, repository, token, apiURL, workspace, summary string
	// configPath is the debatebot.yml on the base branch (DEBATEBOT_REPO_CONFIG, the config input).
	configPath string
	bot        string
	// runURL is the workflow run's page, where the job summary holds the whole transcript.
	runURL string
}

func readActionEnv(getenv func(string) string) (*actionEnv, error) {
	e := &actionEnv{
		event: getenv("GITHUB_EVENT_NAME"), eventPath: getenv("GITHUB_EVENT_PATH"), repository: getenv("GITHUB_REPOSITORY"),
		token: getenv("GITHUB_TOKEN"), apiURL: getenv("GITHUB_API_URL"), workspace: getenv("GITHUB_WORKSPACE"),
		summary: getenv("GITHUB_STEP_SUMMARY"), configPath: getenv("DEBATEBOT_REPO_CONFIG"), bot: getenv("DEBATEBOT_BOT_LOGIN"),
	}
	var missing []string
	for name, v := range map[string]string{"GITHUB_EVENT_NAME": e.event, "GITHUB_EVENT_PATH": e.eventPath, "GITHUB_REPOSITORY": e.repository, "GITHUB_TOKEN": e.token} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, &usageError{fmt.Sprintf("action runs inside a GitHub Actions workflow: %s not set (pass the token with `github-token`, default ${{ github.token }})", strings.Join(missing, ", "))}
	}
	if _, _, ok := strings.Cut(e.repository, "/"); !ok {
		return nil, &usageError{fmt.Sprintf("GITHUB_REPOSITORY %q is not owner/name", e.repository)}
	}
	if e.apiURL == "" {
		e.apiURL = "https://api.github.com"
	}
	if e.workspace == "" {
		e.workspace = "."
	}
	if e.configPath == "" {
		e.configPath = config.RepoPath
	}
	if e.bot == "" {
		e.bot = ActionBot
	}
	if server, id := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_RUN_ID"); server != "" && id != "" {
		e.runURL = fmt.Sprintf("%s/%s/actions/runs/%s", strings.TrimSuffix(server, "/"), e.repository, id)
	}
	return e, nil
}

// actionEvent is the pull request an event asks to debate.
type actionEvent struct {
	number  int
	headSHA string
	trigger string
	// requester and commentID are a /debate command's; protocol its argument.
	requester, protocol string
	commentID           int64
	// action is the pull_request event's action, checked against the configuration's triggers.
	action string
	draft  bool
	sender string
	bot    bool
}

type actionUser struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

// readActionEvent reads the event payload; skip says why an event is not debated.
func readActionEvent(name, path string) (ev *actionEvent, skip string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", &usageError{fmt.Sprintf("cannot read the event payload GITHUB_EVENT_PATH=%s: %v", path, unwrapPath(err))}
	}
	bad := func(err error) error {
		return &usageError{fmt.Sprintf("the %s payload at %s is not valid JSON: %v", name, path, err)}
	}
	switch name {
	case "pull_request", "pull_request_target":
		var p struct {
			Action      string `json:"action"`
			PullRequest struct {
				Number int  `json:"number"`
				Draft  bool `json:"draft"`
				Head   struct {
					SHA string `json:"sha"`
				} `json:"head"`
			} `json:"pull_request"`
			Label struct {
				Name string `json:"name"`
			} `json:"label"`
			Sender actionUser `json:"sender"`
		}
		if err := json.Unmarshal(data, &p); err != nil {
			return nil, "", bad(err)
		}
		trigger := name + "." + p.Action
		switch p.Action {
		case "opened", "synchronize", "reopened", "ready_for_review":
		case "labeled":
			if p.Label.Name != "needs-debate" {
				return nil, fmt.Sprintf("%s with the label %q is not debated (only needs-debate starts a debate)", trigger, p.Label.Name), nil
			}
		default:
			return nil, fmt.Sprintf("%s is not debated (opened, synchronize, reopened, ready_for_review and labeled needs-debate are)", trigger), nil
		}
		if p.PullRequest.Number == 0 {
			return nil, "", &usageError{fmt.Sprintf("the %s payload at %s has no pull_request.number", name, path)}
		}
		return &actionEvent{number: p.PullRequest.Number, headSHA: p.PullRequest.Head.SHA, trigger: trigger, action: p.Action,
			draft: p.PullRequest.Draft, sender: p.Sender.Login, bot: isBot(p.Sender)}, "", nil
	case "issue_comment":
		var p struct {
			Action string `json:"action"`
			Issue  struct {
				Number      int             `json:"number"`
				PullRequest json.RawMessage `json:"pull_request"`
			} `json:"issue"`
			Comment struct {
				ID   int64  `json:"id"`
				Body string `json:"body"`
			} `json:"comment"`
			Sender actionUser `json:"sender"`
		}
		if err := json.Unmarshal(data, &p); err != nil {
			return nil, "", bad(err)
		}
		cmd, arg, ok := handlers.ParseCommand(p.Comment.Body)
		switch {
		case p.Action != "created":
			return nil, fmt.Sprintf("issue_comment.%s is not debated (a new /debate comment is)", p.Action), nil
		case !ok:
			return nil, "the comment is no debatebot command", nil
		case len(p.Issue.PullRequest) == 0 || string(p.Issue.PullRequest) == "null":
			return nil, fmt.Sprintf("%s on issue #%d: design debates on issues are the App's, not the action's", cmd, p.Issue.Number), nil
		case cmd != "/debate" || toulmin.CheckpointAction(arg).Valid():
			return nil, fmt.Sprintf("%s needs the App's durable state (checkpoints, human review); the action holds one debate per run", strings.TrimSpace(cmd+" "+arg)), nil
		}
		return &actionEvent{number: p.Issue.Number, trigger: "issue_comment.created", requester: p.Sender.Login, protocol: arg,
			commentID: p.Comment.ID, sender: p.Sender.Login, bot: isBot(p.Sender)}, "", nil
	}
	return nil, fmt.Sprintf("the %s event is not handled (pull_request, pull_request_target and issue_comment are)", name), nil
}

func isBot(u actionUser) bool { return u.Type == "Bot" || strings.HasSuffix(u.Login, "[bot]") }

// workflowCommand writes a GitHub Actions workflow command (::notice::, ::warning::, ::error::),
// its message redacted and escaped as the runner reads it (one line).
func workflowCommand(w io.Writer, kind, msg string) {
	msg = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(redact.Redact(msg))
	fmt.Fprintf(w, "::%s title=debatebot::%s\n", kind, msg)
}

// denied reports GitHub's refusal of a request the token has no permission for (403 "Resource
// not accessible by integration": the workflow token of a pull request from a fork, or a workflow
// without the permission), as opposed to a secondary rate limit, which is also a 403.
func denied(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusForbidden &&
		strings.Contains(er.Message, "not accessible")
}

// actionClient is a GitHub client for the workflow's API with its token, retrying GitHub's
// transient failures as the App's does.
func actionClient(apiURL, token string) (*github.Client, error) {
	base, err := url.Parse(strings.TrimSuffix(apiURL, "/") + "/")
	if err != nil || base.Host == "" {
		return nil, &usageError{fmt.Sprintf("GITHUB_API_URL %q is not a URL", apiURL)}
	}
	gh := github.NewClient(&http.Client{Transport: handlers.RetryMiddleware(nil)(http.DefaultTransport)}).WithAuthToken(token)
	gh.BaseURL = base
	gh.UserAgent = "debatebot-action/" + version()
	return gh, nil
}

// action runs one debate inside a GitHub Actions workflow on the pull request of its event, and
// publishes it as the App does (the transcript and decision comments by marker, the check run
// with its annotations, the escalation label) with the workflow token. Exit 0 on a completed
// debate whatever it decided, and for an event it does not debate (with a notice); 2 on bad
// input (the environment, the payload, the repository's configuration); 1 when GitHub fails.
func action(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string) (err error) {
	defer func() {
		if err != nil {
			workflowCommand(stdout, "error", err.Error())
		}
	}()
	if len(args) > 0 {
		return &usageError{fmt.Sprintf("action takes no arguments, got %q (it reads the workflow's environment)", args[0])}
	}
	env, err := readActionEnv(getenv)
	if err != nil {
		return err
	}
	ev, skip, err := readActionEvent(env.event, env.eventPath)
	if err != nil {
		return err
	}
	if skip != "" {
		workflowCommand(stdout, "notice", "Nothing to debate: "+skip+".")
		return nil
	}
	if ev.bot && !slices.Contains(strings.Split(getenv("DEBATEBOT_ALLOWED_BOTS"), ","), ev.sender) {
		workflowCommand(stdout, "notice", fmt.Sprintf("Nothing to debate: %s was sent by the bot %s (list it in allowed-bots to debate it).", ev.trigger, ev.sender))
		return nil
	}
	if getenv("GITHUB_ACTIONS") == "true" {
		inContainer(env.workspace)
	}
	gh, err := actionClient(env.apiURL, env.token)
	if err != nil {
		return err
	}
	owner, name, _ := strings.Cut(env.repository, "/")
	a := &actionRun{env: env, ev: ev, gh: gh, pr: review.PullRequest{Owner: owner, Repo: name, Number: ev.number}, stdout: stdout, getenv: getenv}
	return a.run(ctx)
}

// inContainer prepares git and go for the Docker action: the workspace belongs to the runner's
// user, not the container's, which git refuses ("dubious ownership") unless it is a safe
// directory; and the container's HOME (the runner's /github/home) may not be writable for the go
// command's build cache, which the type-checked analysis needs.
func inContainer(workspace string) {
	if os.Getenv("GIT_CONFIG_COUNT") == "" {
		abs, err := filepath.Abs(workspace)
		if err == nil {
			// The environment's configuration counts as the command line's, which git trusts for
			// safe.directory.
			os.Setenv("GIT_CONFIG_COUNT", "1")
			os.Setenv("GIT_CONFIG_KEY_0", "safe.directory")
			os.Setenv("GIT_CONFIG_VALUE_0", abs)
		}
	}
	if os.Getenv("GOCACHE") == "" {
		os.Setenv("GOCACHE", filepath.Join(os.TempDir(), "debatebot-gocache"))
	}
}

// actionRun is one run of the action.
type actionRun struct {
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

func (a *actionRun) notice(kind, format string, args ...any) {
	workflowCommand(a.stdout, kind, a.redact(fmt.Sprintf(format, args...)))
}

func (a *actionRun) run(ctx context.Context) error {
	meta, _, err := a.gh.PullRequests.Get(ctx, a.pr.Owner, a.pr.Repo, a.pr.Number)
	if err != nil {
		return fmt.Errorf("failed to get pull request %s: %w", a.pr, err)
	}
	head := a.ev.headSHA
	if head == "" {
		head = meta.GetHead().GetSHA()
	}
	pub := review.NewPublisher(a.gh, a.pr)
	pub.Bot, pub.DetailsURL, pub.Link = a.env.bot, meta.GetHTMLURL(), a.env.runURL

	// The configuration of the base branch, so that a pull request cannot change the rules that
	// judge it.
	repo, err := handlers.LoadRepoConfigAt(ctx, a.gh, a.pr, meta.GetBase().GetRef(), a.env.configPath)
	if err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			a.comment(ctx, pub, func() error {
				return pub.Upsert(ctx, handlers.ConfigErrorMarker, fmt.Sprintf("debatebot cannot run: `%s` is not valid.\n\n%s\n\nFix the file on the base branch and run the workflow again.",
					a.env.configPath, "- "+strings.Join(ce.Problems, "\n- ")))
			})
		}
		return err
	}
	if a.ev.requester != "" {
		have, err := handlers.Permission(ctx, a.gh, a.pr, a.ev.requester)
		if err != nil {
			return err
		}
		if !config.PermissionAtLeast(have, repo.CommandPermission) {
			a.notice("notice", "@%s has %s permission; /debate needs %s (command_permission). Nothing was started.", a.ev.requester, have, repo.CommandPermission)
			return a.comment(ctx, pub, func() error {
				return pub.Comment(ctx, fmt.Sprintf("@%s: debatebot commands need %s permission on this repository; you have %s. Nothing was started.", a.ev.requester, repo.CommandPermission, have))
			})
		}
		if _, _, err := a.gh.Reactions.CreateIssueCommentReaction(ctx, a.pr.Owner, a.pr.Repo, a.ev.commentID, "eyes"); err != nil {
			a.notice("warning", "Could not react to the command: %v", err)
		}
	} else {
		if meta.GetDraft() && !repo.Triggers.Drafts {
			a.notice("notice", "Nothing to debate: %s is a draft (triggers.drafts is off).", a.pr)
			return nil
		}
		if a.ev.action != "labeled" && !slices.Contains(repo.Triggers.PullRequest, a.ev.action) {
			a.notice("notice", "Nothing to debate: the repository does not debate %s (triggers.pull_request).", a.ev.trigger)
			return nil
		}
	}
	protocol, err := repo.DebateProtocol(a.ev.protocol)
	if err != nil {
		a.comment(ctx, pub, func() error { return pub.Comment(ctx, fmt.Sprintf("debatebot: %v", err)) })
		return &usageError{err.Error()}
	}
	agents, err := panel(repo, a.getenv, false)
	if err != nil {
		return err
	}
	var ie *review.InputError
	prev, change, err := a.since(ctx, pub, meta, head, repo.Ignore)
	if err != nil {
		return err
	}
	if change == nil {
		change, err = a.change(ctx, meta, head, repo.Ignore)
		if errors.As(err, &ie) {
			return a.cannotDebate(ctx, pub, head, ie)
		}
		if err != nil {
			return err
		}
	}
	d := &review.Debate{
		Repository: a.pr.Repository(), PRNumber: a.pr.Number, Trigger: a.ev.trigger, Change: change,
		Protocol: protocol, Agents: agents, Panel: repo.Panel(), Ignore: repo.Ignore, Weights: *repo.Weights,
		Thresholds: repo.VotingThresholds(), Concurrency: repo.LLM.Concurrency,
	}
	if prev != nil {
		// What the earlier debate required is carried: resolved where the push changed its
		// line, still open otherwise, as the App does.
		carried := review.CarryForward(prev, change)
		d.Carry = func(t *toulmin.Transcript) { review.ApplyCarried(t, prev, carried) }
	}
	// The inline review covers what the debate saw: since the earlier head on a push.
	opts := handlers.PublishOptions{Review: &handlers.ReviewScope{Change: change, Event: repo.GitHubReviewEvent()}}
	if prev != nil {
		opts.Review.Since = prev.HeadSHA
	}
	if err := retryDenied(ctx, func() error { return pub.StartCheck(ctx, head) }); err != nil {
		if denied(err) {
			opts.NoCheck = true
			a.notice("notice", "The token cannot create check runs here (%v): the debate is published in comments only, without its check run and annotations. A pull request from a fork gets a read-only token; give the workflow `checks: write`.", err)
		} else {
			// Publishing creates it once GitHub answers again.
			a.notice("warning", "Could not create the check run: %v", err)
		}
	}
	// The transcript comment shows which phase runs, edited at most once per phase.
	progress := handlers.ShowProgress(ctx, pub, func(err error) {
		if denied(err) {
			a.noComments = true
			a.notice("warning", "The token cannot comment on %s (%v): the debate is in the job summary only. A pull request from a fork gets a read-only token; use pull_request_target or give the workflow `pull-requests: write` and `issues: write`.", a.pr, err)
			return
		}
		a.notice("warning", "Could not show the debate's progress: %v", err)
	})
	d.Observer = func(e toulmin.Event) {
		if !a.noComments {
			progress(e)
		}
	}
	t, err := d.Run(ctx)
	if errors.As(err, &ie) {
		return a.cannotDebate(ctx, pub, head, ie)
	}
	if err != nil {
		return err
	}
	published := true
	if !a.noComments {
		if err := handlers.Publish(ctx, pub, t, opts); err != nil {
			if !denied(err) {
				a.summary(t, false)
				return err
			}
			published = false
			a.notice("warning", "GitHub refused to publish the debate to the token (%v): it is in the job summary only.", err)
		}
	} else {
		published = false
	}
	a.summary(t, published)
	a.notice("notice", "%s: %s", a.pr, review.Summary(t))
	dc, err := review.DecisionComment(t)
	if err != nil {
		return err
	}
	_, err = io.WriteString(a.stdout, a.redact(dc))
	return err
}

// retryDenied is three tries with backoff, as the App makes, except for a refusal of the token's
// permission, which another try does not change.
func retryDenied(ctx context.Context, f func() error) error {
	var last error
	for i := 0; i < 3; i++ {
		if last = f(); last == nil || denied(last) {
			return last
		}
		select {
		case <-ctx.Done():
			return errors.Join(last, ctx.Err())
		case <-time.After(time.Duration(200<<i) * time.Millisecond):
		}
	}
	return last
}

// comment writes a comment unless the token may not; a refusal is a warning, not a failure of
// the run, which says the rest.
func (a *actionRun) comment(ctx context.Context, pub *review.Publisher, write func() error) error {
	if err := write(); err != nil {
		if denied(err) {
			a.noComments = true
			a.notice("warning", "The token cannot comment on %s: %v", a.pr, err)
			return nil
		}
		return err
	}
	return nil
}

// cannotDebate says, as the App does, why the change cannot be debated (binary-only, empty,
// every file ignored) in one comment and a neutral check run.
func (a *actionRun) cannotDebate(ctx context.Context, pub *review.Publisher, head string, ie *review.InputError) error {
	msg := fmt.Sprintf("debatebot cannot debate this pull request: %v", ie.Problem)
	a.notice("notice", "%s", msg)
	if err := a.comment(ctx, pub, func() error {
		return retryDenied(ctx, func() error { return pub.Upsert(ctx, handlers.CannotDebateMarker, msg) })
	}); err != nil {
		return err
	}
	if err := retryDenied(ctx, func() error { return pub.NeutralCheck(ctx, head, "Nothing to debate", msg) }); err != nil && !denied(err) {
		return err
	}
	return nil
}

func (a *actionRun) redact(s string) string {
	return strings.ReplaceAll(redact.Redact(s), a.env.token, "***")
}

// summary appends the decision comment to the job summary (GITHUB_STEP_SUMMARY), with the whole
// transcript folded below it: the comment's link points to the run, whose summary it is, and
// when the debate could not be published on the pull request, it is where it is read.
func (a *actionRun) summary(t *toulmin.Transcript, published bool) {
	if a.env.summary == "" {
		return
	}
	dc, err := review.DecisionComment(t)
	if err != nil {
		a.notice("warning", "Could not write the job summary: %v", err)
		return
	}
	md, err := review.Markdown(t, review.RenderOptions{})
	if err != nil {
		a.notice("warning", "Could not write the job summary: %v", err)
		return
	}
	var b strings.Builder
	b.WriteString(dc)
	if !published {
		fmt.Fprintf(&b, "\n> Not published on %s: the token could not write there.\n", a.pr)
	}
	fmt.Fprintf(&b, "\n<details><summary>The whole debate</summary>\n\n%s\n</details>\n", md)
	// GitHub takes at most 1 MiB of summary per step.
	text := review.FitComment(a.redact(b.String()), 1<<20-1024, "")
	f, err := os.OpenFile(a.env.summary, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = io.WriteString(f, text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		a.notice("warning", "Could not write the job summary to GITHUB_STEP_SUMMARY: %v", err)
	}
}

// change reads the pull request's change from the checkout in GITHUB_WORKSPACE, the diff from the
// merge base of its base and head as GitHub shows it, with whole trees for the analysis; when the
// checkout lacks either commit (a shallow checkout), it reads the change through the API as the
// App does, and the trees of the changed packages' directories through the contents API, which
// the transcript says.
func (a *actionRun) change(ctx context.Context, meta *github.PullRequest, head string, ignore []string) (*change.Change, error) {
	base := meta.GetBase().GetSHA()
	missing := ""
	for _, sha := range []string{base, head} {
		if sha == "" || exec.CommandContext(ctx, "git", "-C", a.env.workspace, "cat-file", "-e", sha+"^{commit}").Run() != nil {
			missing = cmp.Or(sha, "(unknown)")
			break
		}
	}
	if missing == "" {
		c, err := review.FromGit(ctx, a.env.workspace, base+"..."+head)
		if err != nil {
			return nil, err
		}
		c.Source, c.Title, c.Body = a.pr.String(), meta.GetTitle(), meta.GetBody()
		c.BaseRef, c.HeadRef = meta.GetBase().GetRef(), meta.GetHead().GetRef()
		c.Commits = commitMessages(ctx, a.env.workspace, base+".."+head)
		if err := review.DropIgnored(c, ignore); err != nil {
			return nil, err
		}
		return c, nil
	}
	c, err := review.ReadPullRequest(ctx, a.gh, a.pr, meta, ignore, review.DefaultMaxDiffBytes)
	if err != nil {
		return nil, err
	}
	why := fmt.Sprintf("commit %s is not in the checkout at GITHUB_WORKSPACE (check out with fetch-depth: 0)", missing)
	a.notice("notice", "Whole trees unavailable: %s; the change is read through the API.", why)
	c.Trees = func(ctx context.Context) (string, string, func(), error) {
		from := handlers.MergeBase(ctx, a.gh, a.pr, base, head)
		var left []string
		baseDir, headDir, cleanup, err := review.TempTrees(func(baseDir, headDir string) error {
			var err error
			left, err = review.DirTrees(ctx, a.gh, a.pr, c, from, head, baseDir, headDir)
			return err
		})
		if err != nil {
			return "", "", nil, fmt.Errorf("whole trees unavailable (%s), and the changed packages' directories could not be read: %w", why, err)
		}
		note := fmt.Sprintf("whole trees unavailable (%s): the type-checked Go analysis saw only the changed packages' directories, read through the contents API", why)
		if len(left) > 0 {
			note += fmt.Sprintf("; left out: %s", strings.Join(left, "; "))
		}
		c.TreesNotes = append(c.TreesNotes, note)
		return baseDir, headDir, cleanup, nil
	}
	return c, nil
}

// since is what a push changed since the head the bot last debated on the pull request (its
// decision comment's record), as the App debates a push: users do not pay for, nor read again, a
// debate of code that was debated. The checkout gives it, with the earlier head's and the new
// head's whole trees; without the earlier head in the checkout, GitHub's comparison does. nil:
// debate the whole change (not a push, no earlier debate, a force push, nothing left after the
// ignored paths).
func (a *actionRun) since(ctx context.Context, pub *review.Publisher, meta *github.PullRequest, head string, ignore []string) (*voting.Record, *change.Change, error) {
	if a.ev.trigger != "pull_request.synchronize" && a.ev.trigger != "pull_request_target.synchronize" {
		return nil, nil, nil
	}
	prev, err := pub.PreviousRecord(ctx)
	if err != nil || prev == nil || prev.HeadSHA == "" || prev.HeadSHA == head {
		return nil, nil, err
	}
	var c *change.Change
	fromGitHub := false
	inCheckout := exec.CommandContext(ctx, "git", "-C", a.env.workspace, "cat-file", "-e", head+"^{commit}").Run() == nil &&
		exec.CommandContext(ctx, "git", "-C", a.env.workspace, "cat-file", "-e", prev.HeadSHA+"^{commit}").Run() == nil
	switch {
	case inCheckout && exec.CommandContext(ctx, "git", "-C", a.env.workspace, "merge-base", "--is-ancestor", prev.HeadSHA, head).Run() != nil:
		// A force push: the earlier head is not in the new history.
		return nil, nil, nil
	case inCheckout:
		if c, err = review.FromGit(ctx, a.env.workspace, prev.HeadSHA+".."+head); err != nil {
			return nil, nil, err
		}
		c.Source = fmt.Sprintf("%s %s...%s", a.pr, review.ShortSHA(prev.HeadSHA), review.ShortSHA(head))
		c.Commits = commitMessages(ctx, a.env.workspace, prev.HeadSHA+".."+head)
	default:
		ok := false
		if c, ok, err = review.ReadSince(ctx, a.gh, a.pr, prev.HeadSHA, head); err != nil || !ok {
			return nil, nil, err
		}
		fromGitHub = true
	}
	if err := review.DropIgnored(c, ignore); err != nil || len(c.Files) == 0 {
		return nil, nil, err
	}
	c.Title, c.Body, c.BaseRef, c.HeadRef = meta.GetTitle(), meta.GetBody(), meta.GetBase().GetRef(), meta.GetHead().GetRef()
	if fromGitHub {
		// As the App's Runner.since: what is left after the ignored paths is read, not more.
		review.ReadCommitMessages(ctx, a.gh, a.pr, c)
		review.FillContents(ctx, a.gh, a.pr, c)
	}
	return prev, c, nil
}

// commitMessages are the messages of the range's commits, oldest first, as the App reads them
// from the pull request; none when git cannot list them.
func commitMessages(ctx context.Context, dir, spec string) []string {
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "log", "--reverse", "--format=%B%x00", spec).Output()
	if err != nil {
		return nil
	}
	var msgs []string
	for _, m := range strings.Split(string(out), "\x00") {
		if m = strings.TrimSpace(m); m != "" {
			msgs = append(msgs, m)
		}
	}
	return msgs
}
