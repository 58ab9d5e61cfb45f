package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
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
}

// New builds everything `serve` needs from the configuration: the client creator, the App's slug
// (read once), the queue and runner, the handlers and the routes. It is the one place that wires.
// qo, when not nil, adjusts the queue's options (tests shorten leases and polls).
func New(ctx context.Context, cfg *config.Server, log zerolog.Logger, qo func(*QueueOptions)) (*Server, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics := NewMetrics(reg)
	clients, err := githubapp.NewDefaultCachingClientCreator(cfg.GitHub,
		githubapp.WithClientUserAgent("debatebot"),
		githubapp.WithClientTimeout(30*time.Second),
		githubapp.WithClientMiddleware(RetryMiddleware(metrics)),
	)
	if err != nil {
		return nil, fmt.Errorf("failed to create the GitHub client creator: %w", err)
	}
	app, err := clients.NewAppClient()
	if err != nil {
		return nil, fmt.Errorf("failed to create the App client: %w", err)
	}
	me, _, err := app.Apps.Get(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("failed to read the App (check GITHUB_APP_INTEGRATION_ID and GITHUB_APP_PRIVATE_KEY): %w", err)
	}
	st, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	reg.MustRegister(newStatsCollector(st))
	runner := &Runner{Clients: clients, Bot: me.GetSlug() + "[bot]", Metrics: metrics, Agents: agentFactory(cfg), Store: st}
	opts := DefaultQueueOptions()
	opts.GiveUp = runner.GiveUp
	if cfg.JobLease > 0 {
		opts.Lease, opts.Heartbeat = cfg.JobLease, cfg.JobLease/4
	}
	if qo != nil {
		qo(&opts)
	}
	queue := NewQueue(st, runner.Run, log, opts)
	base := Base{Queue: queue, Slug: me.GetSlug(), Metrics: metrics, AllowedBots: cfg.AllowedBots}
	dispatcher := githubapp.NewEventDispatcher(
		[]githubapp.EventHandler{&PullRequest{base}, &IssueComment{base}, &Issues{base}},
		cfg.GitHub.App.WebhookSecret,
		githubapp.WithErrorCallback(errorCallback(metrics)),
	)
	mux := http.NewServeMux()
	mux.Handle("POST "+WebhookPath, timed(metrics, dispatcher))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	handler := withLogger(log, mux)
	return &Server{Handler: handler, Queue: queue, Runner: runner, Store: st, Slug: me.GetSlug(), workers: cfg.Workers}, nil
}

// Start runs the workers until ctx ends.
func (s *Server) Start(ctx context.Context) { s.Queue.Start(ctx, s.workers) }

// Close releases the store once the workers have stopped.
func (s *Server) Close() error { return s.Store.Close() }

func agentFactory(cfg *config.Server) AgentFactory {
	return func(repo *config.Repo) ([]toulmin.Agent, error) {
		if cfg.OpenAIKey == "" {
			return review.OfflinePanel(repo.Stakeholders), nil
		}
		return review.LLMPanel(repo.Stakeholders, review.LLMOptions{
			APIKey: cfg.OpenAIKey, BaseURL: cfg.OpenAIBaseURL, Model: cfg.Model, MaxRetries: repo.LLM.MaxRetries,
			RequestTimeout: time.Duration(repo.LLM.RequestTimeout),
			ContextTokens: repo.LLM.ContextTokens, Prices: repo.LLM.PriceTable(),
		})
	}
}

// errorCallback answers 401 for a delivery whose signature does not verify, 400 for other bad
// deliveries, 503 when the store could not keep it (GitHub shows it failed; it can be
// redelivered) and 500 otherwise.
func errorCallback(m *Metrics) githubapp.ErrorCallback {
	return func(w http.ResponseWriter, r *http.Request, err error) {
		log := zerolog.Ctx(r.Context())
		status := http.StatusInternalServerError
		var ve githubapp.ValidationError
		switch {
		case errors.As(err, &ve) && ve.EventType == "":
			status = http.StatusBadRequest
		case errors.As(err, &ve):
			status = http.StatusUnauthorized
		case errors.Is(err, ErrUnavailable):
			status = http.StatusServiceUnavailable
		}
		m.webhookOutcome(r.Header.Get("X-GitHub-Event"), http.StatusText(status))
		log.Warn().Err(err).Str("delivery_id", r.Header.Get("X-GitHub-Delivery")).Int("status", status).Msg("Refused a webhook delivery.")
		http.Error(w, http.StatusText(status)+": "+err.Error(), status)
	}
}

func timed(m *Metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		next.ServeHTTP(w, r)
		m.acknowledged(time.Since(start))
	})
}

func withLogger(log zerolog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(log.WithContext(r.Context())))
	})
}
