package appsetup

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/config"
)

// Options are what the setup needs: app.yml, where serve is reached, GitHub's web and API
// URLs, and where the credentials go.
type Options struct {
	AppYML []byte
	// PublicURL is where browsers and GitHub reach serve (DEBATEBOT_PUBLIC_URL): the App's
	// webhook and the setup callback are built from it, never from a request's Host.
	PublicURL string
	// WebURL is GitHub's web (https://github.com), APIURL its REST API.
	WebURL, APIURL string
	// AppFile is where the credentials are stored (config.AppFile).
	AppFile string
	// HTTPClient makes the conversion's request (http.DefaultClient when nil).
	HTTPClient *http.Client
	Log        zerolog.Logger
}

// Setup is the setup page and its callback. It accepts one registration: the one-time token
// opens the page and comes back from GitHub as the state; once the App is stored, the page is
// gone.
type Setup struct {
	opts     Options
	manifest *Manifest
	token    string

	mu         sync.Mutex
	registered *config.AppCredentials
	done       chan struct{}
}

// New prepares the setup of the App that app.yml describes, with a new one-time token.
func New(opts Options) (*Setup, error) {
	m, err := ParseManifest(opts.AppYML, opts.PublicURL)
	if err != nil {
		return nil, err
	}
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("failed to make the setup token: %w", err)
	}
	opts.PublicURL = strings.TrimSuffix(opts.PublicURL, "/")
	opts.WebURL = strings.TrimSuffix(opts.WebURL, "/")
	if opts.HTTPClient == nil {
		opts.HTTPClient = http.DefaultClient
	}
	return &Setup{opts: opts, manifest: m, token: hex.EncodeToString(b[:]), done: make(chan struct{})}, nil
}

// URL is the setup page's address with its token: the one link that opens it, which serve
// prints when it starts.
func (s *Setup) URL() string { return s.opts.PublicURL + PagePath + "?token=" + s.token }

// Done is closed once the App is registered and its credentials stored.
func (s *Setup) Done() <-chan struct{} { return s.done }

// Registered is the App registered, or nil.
func (s *Setup) Registered() *config.AppCredentials {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.registered
}

// Handler serves the setup page, its callback and the health check; every other path says the
// App is not set up yet (webhooks get 503, so that GitHub's delivery log shows them failed).
func (s *Setup) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+PagePath, s.page)
	mux.HandleFunc("GET "+CallbackPath, s.callback)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok (waiting for the App's setup)") })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "60")
		s.render(w, http.StatusServiceUnavailable, "Not set up yet", "debatebot is waiting for its GitHub App to be registered: open the setup link that <code>debatebot serve</code> printed when it started.", nil)
	})
	return securityHeaders(mux, s.opts.WebURL)
}

// securityHeaders keeps the pages out of frames and caches, and lets their forms post only
// to serve itself and to GitHub's web (origin).
func securityHeaders(h http.Handler, origin string) http.Handler {
	if u, err := url.Parse(origin); err == nil {
		origin = u.Scheme + "://" + u.Host
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' "+origin)
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

// Run serves the setup page on addr until the App is registered (nil) or ctx ends (its
// error); the page that says the App is registered is answered before it returns.
func (s *Setup) Run(ctx context.Context, addr string) error {
	srv := &http.Server{Addr: addr, Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 60 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	select {
	case err := <-errc:
		return fmt.Errorf("failed to serve the setup page on %s: %w", addr, err)
	case <-ctx.Done():
	case <-s.done:
	}
	closing, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(closing); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("failed to close the setup page: %w", err)
	}
	return ctx.Err()
}

// valid reports whether got is the setup token, in constant time.
func (s *Setup) valid(got string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}

// page shows what will be registered and the button that posts the manifest to GitHub's
// new-App page, for the user's account or, with ?org=, an organisation's.
func (s *Setup) page(w http.ResponseWriter, r *http.Request) {
	if s.Registered() != nil {
		s.render(w, http.StatusGone, "Already set up", "The GitHub App is registered; this page is closed.", nil)
		return
	}
	q := r.URL.Query()
	if !s.valid(q.Get("token")) {
		s.render(w, http.StatusForbidden, "Setup link needed", "Open the setup link that <code>debatebot serve</code> printed when it started: it carries a one-time token.", nil)
		return
	}
	m := *s.manifest
	if name := strings.TrimSpace(q.Get("name")); name != "" {
		m.Name = name
	}
	org := strings.TrimSpace(q.Get("org"))
	if org != "" && !reLogin.MatchString(org) {
		s.render(w, http.StatusBadRequest, "Not an organisation", template.HTMLEscapeString(fmt.Sprintf("%q is not an organisation's login on GitHub.", org)), nil)
		return
	}
	text, err := m.JSON()
	if err != nil {
		s.render(w, http.StatusInternalServerError, "Setup failed", template.HTMLEscapeString(err.Error()), nil)
		return
	}
	action := s.opts.WebURL + "/settings/apps/new"
	if org != "" {
		action = s.opts.WebURL + "/organizations/" + url.PathEscape(org) + "/settings/apps/new"
	}
	action += "?state=" + url.QueryEscape(s.token)
	s.render(w, http.StatusOK, "Register debatebot on GitHub", "", &pageData{Action: action, Manifest: text, M: &m, Org: org, Token: s.token})
}

var (
	reLogin = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$`)
	reCode  = regexp.MustCompile(`^[A-Za-z0-9_-]{1,100}$`)
)

// callback takes GitHub back from the new-App page: the state must be the setup token, and the
// code is exchanged, once, for the App's credentials, which are stored.
func (s *Setup) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.registered != nil {
		s.render(w, http.StatusGone, "Already set up", "The GitHub App is registered; this page is closed.", nil)
		return
	}
	if !s.valid(q.Get("state")) {
		s.opts.Log.Warn().Msg("A setup callback came without the setup token; it was refused.")
		s.render(w, http.StatusForbidden, "Refused", "This callback does not carry the setup token of this server: start again from the setup link.", nil)
		return
	}
	code := q.Get("code")
	if !reCode.MatchString(code) {
		s.render(w, http.StatusBadRequest, "No code", "GitHub did not send back a code: start again from the setup link.", nil)
		return
	}
	creds, err := s.convert(r.Context(), code)
	if err == nil {
		err = config.SaveApp(s.opts.AppFile, creds)
	}
	if err != nil {
		s.opts.Log.Error().Err(err).Msg("The App could not be registered.")
		s.render(w, http.StatusBadGateway, "Setup failed", template.HTMLEscapeString(err.Error())+". Start again from the setup link.", nil)
		return
	}
	s.registered = creds
	close(s.done)
	s.opts.Log.Info().Int64("app_id", creds.ID).Str("app", creds.Slug).Str("file", s.opts.AppFile).Msg("The GitHub App is registered and its credentials stored.")
	install := creds.HTMLURL + "/installations/new"
	s.render(w, http.StatusOK, "debatebot is registered",
		fmt.Sprintf(`The GitHub App <strong>%s</strong> is registered, and its credentials are stored in <code>%s</code> (readable by you alone). debatebot now serves with it. <a href="%s">Install it on your repositories</a> to have their pull requests reviewed.`,
			template.HTMLEscapeString(creds.Slug), template.HTMLEscapeString(s.opts.AppFile), template.HTMLEscapeString(install)), nil)
}

// convert exchanges the code for the App's credentials (POST /app-manifests/{code}/conversions).
func (s *Setup) convert(ctx context.Context, code string) (*config.AppCredentials, error) {
	gh := github.NewClient(s.opts.HTTPClient)
	base := s.opts.APIURL
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("GITHUB_V3_API_URL %q: %w", s.opts.APIURL, err)
	}
	gh.BaseURL = u
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	app, _, err := gh.Apps.CompleteAppManifest(ctx, code)
	if err != nil {
		return nil, fmt.Errorf("GitHub did not convert the code into the App's credentials (a code works once, within the hour): %w", err)
	}
	c := &config.AppCredentials{ID: app.GetID(), Slug: app.GetSlug(), HTMLURL: app.GetHTMLURL(), WebhookSecret: app.GetWebhookSecret(),
		PrivateKey: app.GetPEM(), ClientID: app.GetClientID(), ClientSecret: app.GetClientSecret()}
	if c.ID <= 0 || c.WebhookSecret == "" || !strings.Contains(c.PrivateKey, "PRIVATE KEY-----") {
		return nil, errors.New("GitHub's answer lacks the App's id, webhook secret or private key")
	}
	return c, nil
}
