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
	// AppFile is where the setup page stores the App it registers, and whence its
	// credentials are read when the environment and the file do not set them (see AppFile).
	AppFile string
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
	"DEBATEBOT_REPO_DEBATES_PER_HOUR", "DEBATEBOT_REPO_TOKENS_PER_DAY", "DEBATEBOT_APP_FILE",
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
	s, in, err := loadServer(getenv, readFile)
	if err != nil {
		return nil, err
	}
	if len(in.problems) > 0 {
		e := &Error{File: "server configuration", Problems: in.problems, Unregistered: in.unregistered}
		if in.unregistered && s.PublicURL == "" {
			e.Problems = append(e.Problems, "or set DEBATEBOT_PUBLIC_URL (where GitHub reaches this server) and open its /setup page to register the App")
		}
		return nil, e
	}
	return s, nil
}

// LoadSetup reads the server configuration of a server whose App is not registered yet
// (LoadServer's error says Unregistered): the App's settings are left unset, any other
// problem is an error, and so is a missing DEBATEBOT_PUBLIC_URL, from which the setup page
// builds the App's URLs.
func LoadSetup(getenv func(string) string, readFile func(string) ([]byte, error)) (*Server, error) {
	s, in, err := loadServer(getenv, readFile)
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, p := range in.problems {
		if !in.appProblem[p] {
			problems = append(problems, p)
		}
	}
	if !in.unregistered {
		problems = append(problems, "the App is configured already: the setup page registers one only when none is")
	}
	if s.PublicURL == "" {
		problems = append(problems, "DEBATEBOT_PUBLIC_URL: not set (where GitHub reaches this server, e.g. https://debatebot.example.com: the App's webhook and setup URLs are built from it)")
	}
	if len(problems) > 0 {
		return nil, &Error{File: "server configuration", Problems: problems}
	}
	return s, nil
}

// loadServer reads every setting, collecting the problems in the settings it returns.
func loadServer(getenv func(string) string, readFile func(string) ([]byte, error)) (*Server, *serverSettings, error) {
	file, err := readServerFile(getenv, readFile)
	if err != nil {
		return nil, nil, err
	}
	in := &serverSettings{getenv: getenv, file: file, appProblem: map[string]bool{}}
	s := &Server{}
	s.AppFile = in.get("DEBATEBOT_APP_FILE", AppFile(getenv))
	if in.stored, err = readAppFile(s.AppFile, readFile); err != nil {
		return nil, nil, err
	}
	in.process(s)
	in.limits(s)
	in.github(&s.GitHub)
	in.dashboard(s)
	return s, in, nil
}

// readServerFile reads the YAML file named by DEBATEBOT_CONFIG, if any, into its settings by
// key; a key that is not one of serverKeys is an error.
func readServerFile(getenv func(string) string, readFile func(string) ([]byte, error)) (map[string]string, error) {
	file := map[string]string{}
	path := getenv("DEBATEBOT_CONFIG")
	if path == "" {
		return file, nil
	}
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
	return file, nil
}

// serverSettings are the server's settings as LoadServer reads them: each from the environment,
// else from the file, else its default, with the problems found so far in the order read.
type serverSettings struct {
	getenv func(string) string
	file   map[string]string
	// stored are the App's credentials the setup page stored (AppFile).
	stored   map[string]string
	problems []string
	// unregistered is set when nothing names the App (no id, webhook secret or key), and
	// appProblem marks the problems that says.
	unregistered bool
	appProblem   map[string]bool
}

// get is the setting k, or def when neither the environment, the file nor the App's stored
// credentials set it.
func (in *serverSettings) get(k, def string) string {
	if v := in.getenv(k); v != "" {
		return v
	}
	if v, ok := in.file[k]; ok && v != "" {
		return v
	}
	if v, ok := in.stored[k]; ok && v != "" {
		return v
	}
	return def
}

// num reads the setting k as a positive whole number (def when it is not set).
func (in *serverSettings) num(k string, def int) int {
	s := in.get(k, strconv.Itoa(def))
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		in.problems = append(in.problems, fmt.Sprintf("%s: %q is not a positive whole number", k, s))
	}
	return n
}

// whole reads the setting key as a whole number of at least least (def when it is not set);
// otherwise the problem says it is not what (note) and 0 is returned.
func (in *serverSettings) whole(key string, def, least int64, what, note string) int64 {
	v := in.get(key, strconv.FormatInt(def, 10))
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < least {
		in.problems = append(in.problems, fmt.Sprintf("%s: %q is not %s (%s)", key, v, what, note))
		return 0
	}
	return n
}

// process reads how the process runs: where it listens, the model, the database, the log
// level, its workers and their job lease, the bots it hears, the shutdown grace and the cache.
func (in *serverSettings) process(s *Server) {
	s.Addr = in.get("DEBATEBOT_ADDR", DefaultAddr)
	s.OpenAIKey, s.OpenAIBaseURL, s.Model = in.get("OPENAI_API_KEY", ""), in.get("OPENAI_BASE_URL", ""), in.get("DEBATEBOT_MODEL", "")
	s.DatabaseURL, s.LogLevel = in.get("DEBATEBOT_DATABASE_URL", DefaultDatabaseURL), in.get("DEBATEBOT_LOG_LEVEL", DefaultLogLevel)
	s.Workers = in.num("DEBATEBOT_WORKERS", DefaultWorkers)
	for _, b := range strings.Split(in.get("DEBATEBOT_ALLOWED_BOTS", ""), ",") {
		if b = strings.TrimSpace(b); b != "" {
			s.AllowedBots = append(s.AllowedBots, b)
		}
	}
	lease := in.get("DEBATEBOT_JOB_LEASE", DefaultJobLease.String())
	if d, err := time.ParseDuration(lease); err != nil || d < time.Second {
		in.problems = append(in.problems, fmt.Sprintf("DEBATEBOT_JOB_LEASE: %q is not a duration of at least 1s", lease))
	} else {
		s.JobLease = d
	}
	grace := in.get("DEBATEBOT_SHUTDOWN_TIMEOUT", DefaultShutdownTimeout.String())
	if d, err := time.ParseDuration(grace); err != nil || d <= 0 {
		in.problems = append(in.problems, fmt.Sprintf("DEBATEBOT_SHUTDOWN_TIMEOUT: %q is not a positive duration", grace))
	} else {
		s.ShutdownTimeout = d
	}
	s.CacheDir = in.get("DEBATEBOT_CACHE_DIR", defaultCacheDir())
}

// limits reads the bounds on what is fetched and written for the whole-tree analysis, and each
// repository's budget where its debatebot.yml sets none.
func (in *serverSettings) limits(s *Server) {
	s.MaxRepoMB = int(in.whole("DEBATEBOT_MAX_REPO_MB", DefaultMaxRepoMB, 0, "a whole number of megabytes", "0 never fetches whole trees"))
	s.MaxTreeMB = int(in.whole("DEBATEBOT_MAX_TREE_MB", DefaultMaxTreeMB, 1, "a whole number of megabytes", "at least 1"))
	s.MaxTreeFiles = int(in.whole("DEBATEBOT_MAX_TREE_FILES", DefaultMaxTreeFiles, 1, "a whole number of files", "at least 1"))
	s.RepoDebatesPerHour = int(in.whole("DEBATEBOT_REPO_DEBATES_PER_HOUR", DefaultRepoDebatesPerHour, 0, "a whole number of debates", "0: no limit"))
	s.RepoTokensPerDay = in.whole("DEBATEBOT_REPO_TOKENS_PER_DAY", DefaultRepoTokensPerDay, 0, "a whole number of tokens", "0: no limit")
}

// github reads go-githubapp's settings: GitHub's URLs and the App's ID, webhook secret and
// private key, all three required.
func (in *serverSettings) github(g *githubapp.Config) {
	g.V3APIURL = in.get("GITHUB_V3_API_URL", "https://api.github.com")
	g.WebURL = in.get("GITHUB_WEB_URL", webURL(g.V3APIURL))
	g.V4APIURL = in.get("GITHUB_V4_API_URL", "https://api.github.com/graphql")
	g.App.WebhookSecret = in.get("GITHUB_APP_WEBHOOK_SECRET", "")
	g.App.PrivateKey = in.get("GITHUB_APP_PRIVATE_KEY", "")
	in.unregistered = g.App.WebhookSecret == "" && g.App.PrivateKey == "" && in.get("GITHUB_APP_INTEGRATION_ID", "") == ""
	before := len(in.problems)
	defer func() {
		for _, p := range in.problems[before:] {
			in.appProblem[p] = in.unregistered
		}
	}()
	if id := in.get("GITHUB_APP_INTEGRATION_ID", ""); id == "" {
		in.problems = append(in.problems, "GITHUB_APP_INTEGRATION_ID: not set (the App's ID from its settings page)")
	} else if n, err := strconv.ParseInt(id, 10, 64); err != nil || n <= 0 {
		in.problems = append(in.problems, fmt.Sprintf("GITHUB_APP_INTEGRATION_ID: %q is not an App ID", id))
	} else {
		g.App.IntegrationID = n
	}
	if g.App.WebhookSecret == "" {
		in.problems = append(in.problems, "GITHUB_APP_WEBHOOK_SECRET: not set (webhooks could not be verified)")
	}
	if !strings.Contains(g.App.PrivateKey, "PRIVATE KEY-----") {
		in.problems = append(in.problems, "GITHUB_APP_PRIVATE_KEY: not a PEM private key (paste the whole .pem file)")
	}
}

// dashboard reads where users reach serve, the OAuth client they sign in with and the key that
// signs their sessions (derived from the webhook secret when not set; github runs first).
func (in *serverSettings) dashboard(s *Server) {
	s.PublicURL = strings.TrimSuffix(in.get("DEBATEBOT_PUBLIC_URL", ""), "/")
	if s.PublicURL != "" {
		if u, err := url.Parse(s.PublicURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			in.problems = append(in.problems, fmt.Sprintf("DEBATEBOT_PUBLIC_URL: %q is not an http(s) URL (where users reach serve, e.g. https://debatebot.example.com)", s.PublicURL))
		}
	}
	s.OAuthClientID, s.OAuthClientSecret = in.get("GITHUB_OAUTH_CLIENT_ID", ""), in.get("GITHUB_OAUTH_CLIENT_SECRET", "")
	if (s.OAuthClientID == "") != (s.OAuthClientSecret == "") {
		in.problems = append(in.problems, "GITHUB_OAUTH_CLIENT_ID and GITHUB_OAUTH_CLIENT_SECRET: set both (the App's OAuth client) or neither")
	}
	if key := in.get("DEBATEBOT_SESSION_KEY", ""); key != "" {
		if len(key) < 32 {
			in.problems = append(in.problems, "DEBATEBOT_SESSION_KEY: shorter than 32 characters (use a long random value, the same on every replica)")
		}
		s.SessionKey = []byte(key)
	} else if s.GitHub.App.WebhookSecret != "" {
		s.SessionKey = SessionKeyFrom(s.GitHub.App.WebhookSecret)
	}
}

// SessionKeyFrom derives the dashboard's session key from the webhook secret, so that a
// deployment without DEBATEBOT_SESSION_KEY signs sessions with a key its replicas share and
// that is not the webhook secret itself.
func SessionKeyFrom(webhookSecret string) []byte {
	m := hmac.New(sha256.New, []byte(webhookSecret))
	m.Write([]byte("debatebot dashboard session key"))
	return m.Sum(nil)
}
