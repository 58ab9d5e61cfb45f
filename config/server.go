package config

import (
	"bytes"
	"fmt"
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
)

// serverKeys are every key the environment and the file may set.
var serverKeys = []string{
	"GITHUB_WEB_URL", "GITHUB_V3_API_URL", "GITHUB_V4_API_URL",
	"GITHUB_APP_INTEGRATION_ID", "GITHUB_APP_WEBHOOK_SECRET", "GITHUB_APP_PRIVATE_KEY",
	"OPENAI_API_KEY", "OPENAI_BASE_URL", "DEBATEBOT_MODEL", "DEBATEBOT_ADDR", "DEBATEBOT_DATABASE_URL",
	"DEBATEBOT_WORKERS", "DEBATEBOT_QUEUE_SIZE", "DEBATEBOT_LOG_LEVEL", "DEBATEBOT_ALLOWED_BOTS",
	"DEBATEBOT_JOB_LEASE", "DEBATEBOT_SHUTDOWN_TIMEOUT",
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
	g := &s.GitHub
	g.WebURL = get("GITHUB_WEB_URL", "https://github.com")
	g.V3APIURL = get("GITHUB_V3_API_URL", "https://api.github.com")
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
	if len(problems) > 0 {
		return nil, &Error{File: "server configuration", Problems: problems}
	}
	return s, nil
}
