package config

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/palantir/go-githubapp/githubapp"
	"gopkg.in/yaml.v3"
)

// Server is the configuration of `debatebot serve`: go-githubapp's GitHub settings, the model,
// and debatebot's own. Each value comes from the environment, else from the YAML file named by
// DEBATEBOT_CONFIG (whose keys are the environment names), else from its default.
type Server struct {
	GitHub githubapp.Config
	// Addr is where the server listens.
	Addr          string
	OpenAIKey     string
	OpenAIBaseURL string
	Model         string
	DatabaseURL   string
	// Workers run debates on this replica.
	Workers int
	// JobLease is how long a replica holds a job without a heartbeat: after a crash, another
	// replica (or the restarted one) takes the job over once it expires.
	JobLease time.Duration
	// ShutdownTimeout is how long serve, told to stop (SIGTERM), waits for running debates
	// before it stops them; a stopped debate resumes from its last completed phase.
	ShutdownTimeout time.Duration
	// LogLevel is zerolog's level name.
	LogLevel string
	// AllowedBots are other bots whose events and commands may start debates (the App itself
	// never does).
	AllowedBots []string
	// CacheDir keeps one bare git repository per reviewed repository, into which the commits of
	// pull requests are fetched for the whole-tree analysis.
	CacheDir string
	// MaxRepoMB is the largest repository (GitHub's size) whose trees are fetched whole; from a
	// larger one only the changed packages' directories are read. 0 never fetches.
	MaxRepoMB int
	// MaxTreeMB and MaxTreeFiles bound what the base and head trees of one debate may put on
	// disk (both trees together); past them only the changed files' directories, or the changed
	// files, are written, which the transcript says.
	MaxTreeMB, MaxTreeFiles int
	// PublicURL is where users reach serve: the dashboard's links from comments and check runs,
	// and its OAuth callback (PublicURL/oauth/callback).
	PublicURL string
	// OAuthClientID and OAuthClientSecret are the App's OAuth client, for signing in to the
	// dashboard; without them nobody can sign in.
	OAuthClientID, OAuthClientSecret string
	// SessionKey signs the dashboard's session cookies: DEBATEBOT_SESSION_KEY, or derived from
	// the webhook secret when that is not set. Every replica must have the same.
	SessionKey []byte
	// RepoDebatesPerHour and RepoTokensPerDay are each repository's budget where its
	// debatebot.yml sets none: debates started per hour by any trigger, and model tokens per UTC
	// day. 0 is no limit.
	RepoDebatesPerHour int
	RepoTokensPerDay   int64
}

// Defaults of the server.
const (
	DefaultAddr        = ":8080"
	DefaultDatabaseURL = "sqlite:debatebot.db"
	DefaultWorkers     = 2
	DefaultLogLevel    = "info"
	DefaultJobLease    = 2 * time.Minute
	// DefaultShutdownTimeout matches the grace period Kubernetes gives a pod before SIGKILL.
	DefaultShutdownTimeout = 30 * time.Second
	DefaultMaxRepoMB       = 500
	DefaultMaxTreeMB       = 512
	DefaultMaxTreeFiles    = 100_000
	// DefaultRepoDebatesPerHour and DefaultRepoTokensPerDay are each repository's budget: a
	// busy repository's hour of pushes, and a day of some twenty model-backed debates.
	DefaultRepoDebatesPerHour = 30
	DefaultRepoTokensPerDay   = 2_000_000
)

// serverKeys are every key the environment and the file may set.
var serverKeys = []string{
	"GITHUB_WEB_URL", "GITHUB_V3_API_URL", "GITHUB_V4_API_URL",
	"GITHUB_APP_INTEGRATION_ID", "GITHUB_APP_WEBHOOK_SECRET", "GITHUB_APP_PRIVATE_KEY",
	"OPENAI_API_KEY", "OPENAI_BASE_URL", "DEBATEBOT_MODEL", "DEBATEBOT_ADDR", "DEBATEBOT_DATABASE_URL",
	"DEBATEBOT_WORKERS", "DEBATEBOT_QUEUE_SIZE", "DEBATEBOT_LOG_LEVEL", "DEBATEBOT_ALLOWED_BOTS",
	"DEBATEBOT_JOB_LEASE", "DEBATEBOT_SHUTDOWN_TIMEOUT", "DEBATEBOT_CACHE_DIR", "DEBATEBOT_MAX_REPO_MB",
	"DEBATEBOT_MAX_TREE_MB", "DEBATEBOT_MAX_TREE_FILES",
	"DEBATEBOT_PUBLIC_URL", "GITHUB_OAUTH_CLIENT_ID", "GITHUB_OAUTH_CLIENT_SECRET", "DEBATEBOT_SESSION_KEY",
	"DEBATEBOT_REPO_DEBATES_PER_HOUR", "DEBATEBOT_REPO_TOKENS_PER_DAY",
}

// webURL is the web (and git) URL of the GitHub whose REST API is at api: https://github.com for
// https://api.github.com (https://<name>.ghe.com for https://api.<name>.ghe.com), and
// https://<host> for a GitHub Enterprise Server's https://<host>/api/v3.
func webURL(api string) string {
	u, err := url.Parse(api)
	if err != nil || u.Host == "" {
		return "https://github.com"
	}
	if host, ok := strings.CutPrefix(u.Host, "api."); ok && strings.Trim(u.Path, "/") == "" {
		u.Host = host
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/api/v3")
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}

// defaultCacheDir is debatebot/repos in the user's cache directory ($XDG_CACHE_HOME or
// ~/.cache), else in the temporary directory.
func defaultCacheDir() string {
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "debatebot", "repos")
	}
	return filepath.Join(os.TempDir(), "debatebot", "repos")
}

// LoadServer reads the server configuration. getenv and readFile are the process's (os.Getenv,
// os.ReadFile) except in tests.
func LoadServer(getenv func(string) string, readFile func(string) ([]byte, error)) (*Server, error) {
	file := map[string]string{}
	if path := getenv("DEBATEBOT_CONFIG"); path != "" {
		data, err := readFile(path)
		if err != nil {
			return nil, fmt.Errorf("failed to read server config %s: %w", path, err)
		}
		var raw map[string]any
		dec := yaml.NewDecoder(bytes.NewReader(data))
		if err := dec.Decode(&raw); err != nil && err.Error() != "EOF" {
			return nil, &Error{File: path, Problems: yamlProblems(err)}
		}
		known := map[string]bool{}
		for _, k := range serverKeys {
			known[k] = true
		}
		var unknown []string
		for k, v := range raw {
			if !known[k] {
				unknown = append(unknown, fmt.Sprintf("unknown key %q", k))
				continue
			}
			file[k] = fmt.Sprint(v)
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			return nil, &Error{File: path, Problems: unknown}
		}
	}
	get := func(k, def string) string {
		if v := getenv(k); v != "" {
			return v
		}
		if v, ok := file[k]; ok && v != "" {
			return v
		}
		return def
	}
	var problems []string
	num := func(k string, def int) int {
		s := get(k, strconv.Itoa(def))
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			problems = append(problems, fmt.Sprintf("%s: %q is not a positive whole number", k, s))
		}
		return n
	}
	s := &Server{
		Addr:      get("DEBATEBOT_ADDR", DefaultAddr),
		OpenAIKey: get("OPENAI_API_KEY", ""), OpenAIBaseURL: get("OPENAI_BASE_URL", ""), Model: get("DEBATEBOT_MODEL", ""),
		DatabaseURL: get("DEBATEBOT_DATABASE_URL", DefaultDatabaseURL), LogLevel: get("DEBATEBOT_LOG_LEVEL", DefaultLogLevel),
		Workers: num("DEBATEBOT_WORKERS", DefaultWorkers),
	}
	for _, b := range strings.Split(get("DEBATEBOT_ALLOWED_BOTS", ""), ",") {
		if b = strings.TrimSpace(b); b != "" {
			s.AllowedBots = append(s.AllowedBots, b)
		}
	}
	lease := get("DEBATEBOT_JOB_LEASE", DefaultJobLease.String())
	if d, err := time.ParseDuration(lease); err != nil || d < time.Second {
		problems = append(problems, fmt.Sprintf("DEBATEBOT_JOB_LEASE: %q is not a duration of at least 1s", lease))
	} else {
		s.JobLease = d
	}
	grace := get("DEBATEBOT_SHUTDOWN_TIMEOUT", DefaultShutdownTimeout.String())
	if d, err := time.ParseDuration(grace); err != nil || d <= 0 {
		problems = append(problems, fmt.Sprintf("DEBATEBOT_SHUTDOWN_TIMEOUT: %q is not a positive duration", grace))
	} else {
		s.ShutdownTimeout = d
	}
	s.CacheDir = get("DEBATEBOT_CACHE_DIR", defaultCacheDir())
	whole := func(key string, def, least int64, what, note string) int64 {
		return wholeSetting(get, key, def, least, what, note, &problems)
	}
	s.MaxRepoMB = int(whole("DEBATEBOT_MAX_REPO_MB", DefaultMaxRepoMB, 0, "a whole number of megabytes", "0 never fetches whole trees"))
	s.MaxTreeMB = int(whole("DEBATEBOT_MAX_TREE_MB", DefaultMaxTreeMB, 1, "a whole number of megabytes", "at least 1"))
	s.MaxTreeFiles = int(whole("DEBATEBOT_MAX_TREE_FILES", DefaultMaxTreeFiles, 1, "a whole number of files", "at least 1"))
	// Each repository's budget where its debatebot.yml sets none.
	s.RepoDebatesPerHour = int(whole("DEBATEBOT_REPO_DEBATES_PER_HOUR", DefaultRepoDebatesPerHour, 0, "a whole number of debates", "0: no limit"))
	s.RepoTokensPerDay = whole("DEBATEBOT_REPO_TOKENS_PER_DAY", DefaultRepoTokensPerDay, 0, "a whole number of tokens", "0: no limit")
	g := &s.GitHub
	g.V3APIURL = get("GITHUB_V3_API_URL", "https://api.github.com")
	g.WebURL = get("GITHUB_WEB_URL", webURL(g.V3APIURL))
	g.V4APIURL = get("GITHUB_V4_API_URL", "https://api.github.com/graphql")
	g.App.WebhookSecret = get("GITHUB_APP_WEBHOOK_SECRET", "")
	g.App.PrivateKey = get("GITHUB_APP_PRIVATE_KEY", "")
	if id := get("GITHUB_APP_INTEGRATION_ID", ""); id == "" {
		problems = append(problems, "GITHUB_APP_INTEGRATION_ID: not set (the App's ID from its settings page)")
	} else if n, err := strconv.ParseInt(id, 10, 64); err != nil || n <= 0 {
		problems = append(problems, fmt.Sprintf("GITHUB_APP_INTEGRATION_ID: %q is not an App ID", id))
	} else {
		g.App.IntegrationID = n
	}
	if g.App.WebhookSecret == "" {
		problems = append(problems, "GITHUB_APP_WEBHOOK_SECRET: not set (webhooks could not be verified)")
	}
	if !strings.Contains(g.App.PrivateKey, "PRIVATE KEY-----") {
		problems = append(problems, "GITHUB_APP_PRIVATE_KEY: not a PEM private key (paste the whole .pem file)")
	}
	s.PublicURL = strings.TrimSuffix(get("DEBATEBOT_PUBLIC_URL", ""), "/")
	if s.PublicURL != "" {
		if u, err := url.Parse(s.PublicURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			problems = append(problems, fmt.Sprintf("DEBATEBOT_PUBLIC_URL: %q is not an http(s) URL (where users reach serve, e.g. https://debatebot.example.com)", s.PublicURL))
		}
	}
	s.OAuthClientID, s.OAuthClientSecret = get("GITHUB_OAUTH_CLIENT_ID", ""), get("GITHUB_OAUTH_CLIENT_SECRET", "")
	if (s.OAuthClientID == "") != (s.OAuthClientSecret == "") {
		problems = append(problems, "GITHUB_OAUTH_CLIENT_ID and GITHUB_OAUTH_CLIENT_SECRET: set both (the App's OAuth client) or neither")
	}
	if key := get("DEBATEBOT_SESSION_KEY", ""); key != "" {
		if len(key) < 32 {
			problems = append(problems, "DEBATEBOT_SESSION_KEY: shorter than 32 characters (use a long random value, the same on every replica)")
		}
		s.SessionKey = []byte(key)
	} else if g.App.WebhookSecret != "" {
		s.SessionKey = SessionKeyFrom(g.App.WebhookSecret)
	}
	if len(problems) > 0 {
		return nil, &Error{File: "server configuration", Problems: problems}
	}
	return s, nil
}

// SessionKeyFrom derives the dashboard's session key from the webhook secret, so that a
// deployment without DEBATEBOT_SESSION_KEY signs sessions with a key its replicas share and
// that is not the webhook secret itself.
func SessionKeyFrom(webhookSecret string) []byte {
	m := hmac.New(sha256.New, []byte(webhookSecret))
	m.Write([]byte("debatebot dashboard session key"))
	return m.Sum(nil)
}

// wholeSetting reads the setting key as a whole number of at least least (def when it is not
// set); otherwise the problem says it is not what (note) and 0 is returned.
func wholeSetting(get func(key, def string) string, key string, def, least int64, what, note string, problems *[]string) int64 {
	v := get(key, strconv.FormatInt(def, 10))
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < least {
		*problems = append(*problems, fmt.Sprintf("%s: %q is not %s (%s)", key, v, what, note))
		return 0
	}
	return n
}
