package workflow

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review/pipeline"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/google/go-github/v62/github"
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
		return nil, &pipeline.UsageError{Msg: fmt.Sprintf("action runs inside a GitHub Actions workflow: %s not set (pass the token with `github-token`, default ${{ github.token }})", strings.Join(missing, ", "))}
	}
	if _, _, ok := strings.Cut(e.repository, "/"); !ok {
		return nil, &pipeline.UsageError{Msg: fmt.Sprintf("GITHUB_REPOSITORY %q is not owner/name", e.repository)}
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

// actionClient is a GitHub client for the workflow's API with its token, retrying GitHub's
// transient failures as the App's does.
func actionClient(apiURL, token, version string) (*github.Client, error) {
	base, err := url.Parse(strings.TrimSuffix(apiURL, "/") + "/")
	if err != nil || base.Host == "" {
		return nil, &pipeline.UsageError{Msg: fmt.Sprintf("GITHUB_API_URL %q is not a URL", apiURL)}
	}
	gh := github.NewClient(&http.Client{Transport: publish.RetryMiddleware(nil, nil)(http.DefaultTransport)}).WithAuthToken(token)
	gh.BaseURL = base
	gh.UserAgent = "debatebot-action/" + version
	return gh, nil
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
