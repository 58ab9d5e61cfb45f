package handlers

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/debatebot/debatebot/toulmin"
)

// Metrics are the server's Prometheus series. A nil *Metrics records nothing.
type Metrics struct {
	Webhooks       *prometheus.CounterVec
	WebhookSeconds prometheus.Histogram
	Jobs           *prometheus.CounterVec
	JobSeconds     prometheus.Histogram
	Debates        *prometheus.CounterVec
	DebateSeconds  *prometheus.HistogramVec
	Tokens         *prometheus.CounterVec
	Refusals       *prometheus.CounterVec
	GitHubRequests *prometheus.CounterVec
	GitHubSeconds  prometheus.Histogram
	// AlertIssuesWithheld counts the alerts that opened no issue with alerts: issue, by reason
	// (public_repository, cap).
	AlertIssuesWithheld *prometheus.CounterVec
}

// NewMetrics registers the series with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Webhooks:            prometheus.NewCounterVec(prometheus.CounterOpts{Name: "debatebot_webhooks_total", Help: "Webhook deliveries by event and outcome."}, []string{"event", "outcome"}),
		WebhookSeconds:      prometheus.NewHistogram(prometheus.HistogramOpts{Name: "debatebot_webhook_duration_seconds", Help: "Time to acknowledge a delivery.", Buckets: []float64{.001, .0025, .005, .01, .02, .05, .1, .5}}),
		Jobs:                prometheus.NewCounterVec(prometheus.CounterOpts{Name: "debatebot_jobs_total", Help: "Debate jobs by kind and outcome."}, []string{"kind", "outcome"}),
		JobSeconds:          prometheus.NewHistogram(prometheus.HistogramOpts{Name: "debatebot_job_duration_seconds", Help: "Time to run a job.", Buckets: prometheus.ExponentialBuckets(0.1, 2, 12)}),
		Debates:             prometheus.NewCounterVec(prometheus.CounterOpts{Name: "debatebot_debates_total", Help: "Completed debates by protocol and decision."}, []string{"protocol", "decision"}),
		DebateSeconds:       prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "debatebot_debate_duration_seconds", Help: "Debate duration by protocol.", Buckets: prometheus.ExponentialBuckets(0.1, 2, 12)}, []string{"protocol"}),
		Tokens:              prometheus.NewCounterVec(prometheus.CounterOpts{Name: "debatebot_tokens_total", Help: "Model tokens by kind."}, []string{"kind"}),
		Refusals:            prometheus.NewCounterVec(prometheus.CounterOpts{Name: "debatebot_command_refusals_total", Help: "Commands refused by reason."}, []string{"reason"}),
		GitHubRequests:      prometheus.NewCounterVec(prometheus.CounterOpts{Name: "debatebot_github_requests_total", Help: "GitHub API requests by method and status code."}, []string{"method", "code"}),
		GitHubSeconds:       prometheus.NewHistogram(prometheus.HistogramOpts{Name: "debatebot_github_request_duration_seconds", Help: "GitHub API request duration.", Buckets: prometheus.DefBuckets}),
		AlertIssuesWithheld: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "debatebot_alert_issues_withheld_total", Help: "Security alerts that opened no issue (alerts: issue), by reason."}, []string{"reason"}),
	}
	reg.MustRegister(m.Webhooks, m.WebhookSeconds, m.Jobs, m.JobSeconds, m.Debates, m.DebateSeconds, m.Tokens, m.Refusals, m.GitHubRequests, m.GitHubSeconds, m.AlertIssuesWithheld)
	return m
}

func (m *Metrics) job(j *Job, err error, d time.Duration) {
	if m == nil {
		return
	}
	outcome := "ok"
	if err != nil {
		outcome = "failed"
	}
	m.Jobs.WithLabelValues(string(j.Kind), outcome).Inc()
	m.JobSeconds.Observe(d.Seconds())
}

func (m *Metrics) debate(t *toulmin.Transcript) {
	if m == nil {
		return
	}
	m.Debates.WithLabelValues(t.Protocol, string(t.Record.Decision)).Inc()
	m.DebateSeconds.WithLabelValues(t.Protocol).Observe(t.EndedAt.Sub(t.StartedAt).Seconds())
	m.Tokens.WithLabelValues("prompt").Add(float64(t.Usage.Prompt))
	m.Tokens.WithLabelValues("completion").Add(float64(t.Usage.Completion))
	m.Tokens.WithLabelValues("cached_prompt").Add(float64(t.Usage.CachedPrompt))
}

func (m *Metrics) refused(reason string) {
	if m != nil {
		m.Refusals.WithLabelValues(reason).Inc()
	}
}

func (m *Metrics) acknowledged(d time.Duration) {
	if m != nil {
		m.WebhookSeconds.Observe(d.Seconds())
	}
}

func (m *Metrics) webhookOutcome(trigger, outcome string) {
	if m != nil {
		m.Webhooks.WithLabelValues(trigger, outcome).Inc()
	}
}

func (m *Metrics) gaveUp(j *Job) {
	if m != nil {
		m.Jobs.WithLabelValues(string(j.Kind), "given_up").Inc()
	}
}

func (m *Metrics) alertWithheld(reason string) {
	if m != nil {
		m.AlertIssuesWithheld.WithLabelValues(reason).Inc()
	}
}
