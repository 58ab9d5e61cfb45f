package handlers

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/dashboard"
	"github.com/debatebot/debatebot/dialectic"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/review/repocache"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
)

// WebhookPath is where GitHub posts deliveries.
const WebhookPath = "/api/github/hook"

// Server is the whole App: the webhook dispatcher, the queue and its workers, health and metrics.
type Server struct {
	Handler http.Handler
	Queue   *Queue
	Runner  *Runner
	Store   *store.Store
	Slug    string
	workers int
	// draining is set by Drain: deliveries are answered 503 until the listener closes.
	draining *atomic.Bool
	guard    *webhookGuard
}

// New builds everything `serve` needs from the configuration, in this order: the metrics, the
// GitHub clients and the App's slug (read once), the whole-tree cache, the store, the runner, the
// queue, the event handlers behind the webhook guard, and the routes. It is the one place that
// wires. qo, when not nil, adjusts the queue's options (tests shorten leases and polls).
func New(ctx context.Context, cfg *config.Server, log zerolog.Logger, qo func(*QueueOptions)) (*Server, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics := NewMetrics(reg)
	clients, slug, err := newClients(ctx, cfg, metrics)
	if err != nil {
		return nil, err
	}
	trees, err := newTrees(cfg, clients)
	if err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	reg.MustRegister(newStatsCollector(st))
	runner := &Runner{Clients: clients, Bot: slug + "[bot]", Metrics: metrics, Agents: agentFactory(cfg), Store: st, Trees: trees, PublicURL: cfg.PublicURL,
		Dialectic: dialecticFactory(cfg), ReplyModel: replyModelFactory(cfg)}
	runner.Budget = RepoBudget{DebatesPerHour: cfg.RepoDebatesPerHour, TokensPerDay: cfg.RepoTokensPerDay}
	queue := newQueue(cfg, st, runner, log, qo)
	draining := new(atomic.Bool)
	guard := newGuard(cfg, metrics, draining, Base{Queue: queue, Slug: slug, AllowedBots: cfg.AllowedBots})
	mux := http.NewServeMux()
	mux.Handle("POST "+WebhookPath, timed(metrics, guard))
	mux.HandleFunc("GET /healthz", healthz(draining))
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	if err := registerDashboard(mux, cfg, st, runner); err != nil {
		st.Close()
		return nil, err
	}
	return &Server{Handler: withLogger(log, mux), Queue: queue, Runner: runner, Store: st, Slug: slug, workers: cfg.Workers, draining: draining, guard: guard}, nil
}

// newClients creates the client creator of the App's installations (retrying through
// RetryMiddleware) and reads the App's slug with the App's own client.
func newClients(ctx context.Context, cfg *config.Server, metrics *Metrics) (githubapp.ClientCreator, string, error) {
	clients, err := githubapp.NewDefaultCachingClientCreator(cfg.GitHub,
		githubapp.WithClientUserAgent("debatebot"),
		githubapp.WithClientTimeout(30*time.Second),
		githubapp.WithClientMiddleware(publish.RetryMiddleware(metrics.GitHubRequests, metrics.GitHubSeconds)),
	)
	if err != nil {
		return nil, "", fmt.Errorf("failed to create the GitHub client creator: %w", err)
	}
	app, err := clients.NewAppClient()
	if err != nil {
		return nil, "", fmt.Errorf("failed to create the App client: %w", err)
	}
	me, _, err := app.Apps.Get(ctx, "")
	if err != nil {
		return nil, "", fmt.Errorf("failed to read the App (check GITHUB_APP_INTEGRATION_ID and GITHUB_APP_PRIVATE_KEY): %w", err)
	}
	return clients, me.GetSlug(), nil
}

// newTrees gives review debates whole trees for the type-checked analysis, unless no cache is
// configured (tests' servers): then nil.
func newTrees(cfg *config.Server, clients githubapp.ClientCreator) (*Trees, error) {
	if cfg.CacheDir == "" {
		return nil, nil
	}
	cache, err := repocache.New(cfg.CacheDir)
	if err != nil {
		return nil, fmt.Errorf("DEBATEBOT_CACHE_DIR (set it to a writable directory): %w", err)
	}
	return &Trees{Cache: cache, WebURL: cfg.GitHub.WebURL, MaxRepoMB: cfg.MaxRepoMB, Token: AppToken(clients.NewAppClient), Limits: treeLimits(cfg)}, nil
}

// newQueue creates the durable queue whose workers hold the runner's jobs, and gives the runner
// the queue's hands: stopping a local debate and enqueueing a job.
func newQueue(cfg *config.Server, st *store.Store, runner *Runner, log zerolog.Logger, qo func(*QueueOptions)) *Queue {
	opts := DefaultQueueOptions()
	opts.GiveUp, opts.Sweep, opts.Metrics = runner.GiveUp, runner.SweepPaused, runner.Metrics
	if cfg.JobLease > 0 {
		opts.Lease, opts.Heartbeat = cfg.JobLease, cfg.JobLease/4
	}
	if qo != nil {
		qo(&opts)
	}
	queue := NewQueue(st, runner.Run, log, opts)
	runner.StopLocal, runner.Enqueue = queue.StopLocal, queue.Enqueue
	return queue
}

// newGuard puts the webhook guard before go-githubapp's dispatcher of the event handlers, one
// per webhook event.
func newGuard(cfg *config.Server, metrics *Metrics, draining *atomic.Bool, base Base) *webhookGuard {
	dispatcher := githubapp.NewEventDispatcher(
		[]githubapp.EventHandler{&PullRequest{base}, &IssueComment{base}, &ReviewCommentReply{base}, &Issues{base}, &WorkflowRun{base}, &CheckRun{base},
			&CodeScanningAlert{base}, &DependabotAlert{base}},
		cfg.GitHub.App.WebhookSecret,
		githubapp.WithErrorCallback(errorCallback(metrics)),
	)
	return &webhookGuard{
		next: dispatcher, secret: []byte(cfg.GitHub.App.WebhookSecret), onError: errorCallback(metrics),
		draining: draining, budget: newMemoryBudget(webhookMemory),
	}
}

// healthz answers load balancers: ok, or 503 while the replica drains (it leaves the rotation).
func healthz(draining *atomic.Bool) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if draining.Load() {
			// Load balancers take a draining replica out of rotation.
			w.Header().Set("Retry-After", retryAfter)
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("draining\n"))
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	}
}

// registerDashboard sets up the dashboard's pages on mux; its checkpoint buttons answer through
// the runner as the comment commands do.
func registerDashboard(mux *http.ServeMux, cfg *config.Server, st *store.Store, runner *Runner) error {
	sessionKey := cfg.SessionKey
	if len(sessionKey) == 0 {
		sessionKey = config.SessionKeyFrom(cfg.GitHub.App.WebhookSecret)
	}
	dash, err := dashboard.New(dashboard.Config{
		Store: st, WebURL: cfg.GitHub.WebURL, APIURL: cfg.GitHub.V3APIURL, ClientID: cfg.OAuthClientID, ClientSecret: cfg.OAuthClientSecret,
		PublicURL: cfg.PublicURL, SessionKey: sessionKey, Checkpoints: dashboardCheckpoints{runner},
		HTTPClient: &http.Client{Timeout: 30 * time.Second},
	})
	if err != nil {
		return fmt.Errorf("failed to set up the dashboard: %w", err)
	}
	dash.Register(mux)
	return nil
}

// Drain starts the shutdown: from now on deliveries are answered 503 with Retry-After (GitHub's
// delivery log shows a failure that can be redelivered) while the listener stays open and the
// running debates finish; /healthz answers 503 too.
func (s *Server) Drain() { s.draining.Store(true) }

// Start runs the workers until ctx ends.
func (s *Server) Start(ctx context.Context) { s.Queue.Start(ctx, s.workers) }

// Close releases the store once the workers have stopped.
func (s *Server) Close() error { return s.Store.Close() }

func agentFactory(cfg *config.Server) AgentFactory {
	return func(repo *config.Repo) ([]toulmin.Agent, error) {
		if cfg.OpenAIKey == "" {
			return agents.OfflinePanel(repo.Stakeholders), nil
		}
		return agents.LLMPanel(repo.Stakeholders, repo.LLM.Options(cfg.OpenAIKey, cfg.OpenAIBaseURL, cfg.Model))
	}
}

// dialecticFactory gives failure and planning debates the model's advocate and critic when a
// model is configured; without one the runner falls back to the rules.
func dialecticFactory(cfg *config.Server) func(*config.Repo) dialectic.Agents {
	return func(repo *config.Repo) dialectic.Agents {
		if cfg.OpenAIKey == "" {
			return nil
		}
		return agents.NewDialecticLLM(llm.Options{
			APIKey: cfg.OpenAIKey, BaseURL: cfg.OpenAIBaseURL, Model: cfg.Model, MaxRetries: repo.LLM.MaxRetries,
			RequestTimeout: time.Duration(repo.LLM.RequestTimeout), Prices: repo.LLM.PriceTable(),
		})
	}
}

// replyModelFactory gives the answers to questions in review threads the model when one is
// configured; without one they are answered from the evidence and the rule catalog.
func replyModelFactory(cfg *config.Server) func(*config.Repo) *llm.Client {
	return func(repo *config.Repo) *llm.Client {
		if cfg.OpenAIKey == "" {
			return nil
		}
		o := llm.Options{APIKey: cfg.OpenAIKey, BaseURL: cfg.OpenAIBaseURL, Model: cfg.Model, MaxRetries: repo.LLM.MaxRetries,
			RequestTimeout: time.Duration(repo.LLM.RequestTimeout), Prices: repo.LLM.PriceTable()}.WithDefaults()
		return &llm.Client{API: o.API(), Model: o.Model, Prices: o.Prices, MaxRetries: o.MaxRetries, RequestTimeout: o.RequestTimeout}
	}
}

// treeLimits are the limits of the trees written for one debate; an unset one (0) is the default.
func treeLimits(cfg *config.Server) review.TreeLimits {
	lim := review.DefaultTreeLimits()
	if cfg.MaxTreeMB > 0 {
		lim.MaxBytes = int64(cfg.MaxTreeMB) << 20
	}
	if cfg.MaxTreeFiles > 0 {
		lim.MaxFiles = cfg.MaxTreeFiles
	}
	return lim
}
