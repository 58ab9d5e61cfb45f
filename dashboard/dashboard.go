// Package dashboard serves the web pages of debatebot on serve's listener: the list of debates
// (GET /), one debate, live while it runs (GET /debates/{id}, Server-Sent Events at
// /debates/{id}/events), its checkpoint buttons (POST /debates/{id}/checkpoint), the debate
// metrics per repository (GET /metrics-overview), the dismissed findings with their undo
// (GET /dismissals, POST /dismissals/undo), and sign-in with GitHub (GET /login,
// GET /oauth/callback, POST /logout).
//
// Debates hold private code: every page needs a signed-in user, and shows only the debates of
// repositories that user can read, checked with the user's own GitHub token. The store is the
// source of truth for every page, so that any replica serves any page, live ones included.
package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"
	"golang.org/x/oauth2"

	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
)

// Checkpoints answers a paused debate's checkpoint as the comment commands do (the handlers'
// runner implements it).
type Checkpoints interface {
	// Permission reports whether login may answer the debate's checkpoint (the repository's
	// command_permission), and the permission needed and held.
	Permission(ctx context.Context, debateID, login string) (ok bool, need, have string, err error)
	// Answer answers the checkpoint of the paused debate for login, as "/debate continue",
	// "/debate guide TEXT" or "/debate end" by login would.
	Answer(ctx context.Context, debateID, login string, action toulmin.CheckpointAction, guidance string) error
}

// Config is what the dashboard needs.
type Config struct {
	Store *store.Store
	// WebURL is GitHub's web URL (the OAuth endpoints); APIURL its REST API's.
	WebURL, APIURL string
	// ClientID and ClientSecret are the App's OAuth client; without them nobody can sign in.
	ClientID, ClientSecret string
	// PublicURL is where users reach serve (the OAuth callback is under it); when empty, the
	// request's own host is used.
	PublicURL string
	// SessionKey signs the session cookies (at least 16 bytes).
	SessionKey []byte
	// Checkpoints, when set, gives paused debates their buttons.
	Checkpoints Checkpoints
	// HTTPClient calls GitHub (http.DefaultClient when nil).
	HTTPClient *http.Client
	// Poll is how often a live page's events look at the store (1s when 0); AccessTTL how long
	// a user's access to a repository is trusted before it is asked again (2 minutes when 0).
	Poll, AccessTTL time.Duration
	// PageSize is the list's page (50 when 0).
	PageSize int
}

// Dashboard is the dashboard's handler.
type Dashboard struct {
	cfg    Config
	seal   *sealer
	oauth  *oauth2.Config
	mux    *http.ServeMux
	access *accessCache
}

// New returns the dashboard.
func New(cfg Config) (*Dashboard, error) {
	if cfg.Store == nil {
		return nil, errors.New("the dashboard needs the store")
	}
	seal, err := newSealer(cfg.SessionKey)
	if err != nil {
		return nil, fmt.Errorf("dashboard session key: %w", err)
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	if cfg.AccessTTL <= 0 {
		cfg.AccessTTL = 2 * time.Minute
	}
	if cfg.PageSize <= 0 {
		cfg.PageSize = 50
	}
	web := strings.TrimSuffix(cfg.WebURL, "/")
	if web == "" {
		web = "https://github.com"
	}
	d := &Dashboard{cfg: cfg, seal: seal, mux: http.NewServeMux(), access: &accessCache{ttl: cfg.AccessTTL, entries: map[string]accessEntry{}}}
	d.oauth = &oauth2.Config{
		ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret,
		Endpoint: oauth2.Endpoint{AuthURL: web + "/login/oauth/authorize", TokenURL: web + "/login/oauth/access_token", AuthStyle: oauth2.AuthStyleInParams},
	}
	d.mux.HandleFunc("GET /{$}", d.signedIn(d.list))
	d.mux.HandleFunc("GET /debates/{id}", d.signedIn(d.debate))
	d.mux.HandleFunc("GET /debates/{id}/events", d.signedIn(d.events))
	d.mux.HandleFunc("POST /debates/{id}/checkpoint", d.signedIn(d.checkpoint))
	d.mux.HandleFunc("GET /metrics-overview", d.signedIn(d.metrics))
	d.mux.HandleFunc("GET /dismissals", d.signedIn(d.dismissals))
	d.mux.HandleFunc("POST /dismissals/undo", d.signedIn(d.undoDismissal))
	d.mux.HandleFunc("GET /login", d.login)
	d.mux.HandleFunc("GET /oauth/callback", d.callback)
	d.mux.HandleFunc("POST /logout", d.logout)
	return d, nil
}

// Register adds the dashboard's routes to mux.
func (d *Dashboard) Register(mux *http.ServeMux) {
	for _, p := range []string{"GET /{$}", "GET /debates/{id}", "GET /debates/{id}/events", "POST /debates/{id}/checkpoint", "GET /metrics-overview", "GET /dismissals", "POST /dismissals/undo", "GET /login", "GET /oauth/callback", "POST /logout"} {
		mux.Handle(p, d)
	}
}

// ServeHTTP serves the dashboard's pages.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// The pages are the user's own and hold private code: never cached, never framed.
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Content-Security-Policy", d.csp(""))
	d.mux.ServeHTTP(w, r)
}

// csp is the pages' Content-Security-Policy: nothing from elsewhere, and no script but the live
// page's own, named by its nonce.
func (d *Dashboard) csp(scriptNonce string) string {
	script := "'none'"
	if scriptNonce != "" {
		script = "'nonce-" + scriptNonce + "'"
	}
	return "default-src 'none'; style-src 'unsafe-inline'; script-src " + script + "; img-src 'self' data:; connect-src 'self'; form-action 'self' " + d.webOrigin() + "; frame-ancestors 'none'; base-uri 'none'"
}

func (d *Dashboard) webOrigin() string {
	u, err := url.Parse(d.oauth.Endpoint.AuthURL)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// viewer is the signed-in user of a request.
type viewer struct {
	sess  *session
	token string
	csrf  string
}

// signedIn lets only signed-in users through; others are sent to sign in, and come back.
func (d *Dashboard) signedIn(next func(http.ResponseWriter, *http.Request, *viewer)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, err := d.viewer(r)
		if err != nil {
			if r.Method != http.MethodGet || strings.HasSuffix(r.URL.Path, "/events") {
				http.Error(w, "Sign in first: "+err.Error(), http.StatusUnauthorized)
				return
			}
			http.Redirect(w, r, "/login?next="+url.QueryEscape(sameOriginPath(r.URL.RequestURI())), http.StatusSeeOther)
			return
		}
		next(w, r, v)
	}
}

// viewer reads the session cookie: signed, unexpired, with a token that decrypts.
func (d *Dashboard) viewer(r *http.Request) (*viewer, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil, errors.New("no session")
	}
	var s session
	if err := d.seal.open(c.Value, &s); err != nil {
		return nil, err
	}
	if time.Now().Unix() > s.Expires {
		return nil, errors.New("the session expired")
	}
	tok, err := d.seal.decrypt(s.Token)
	if err != nil {
		return nil, err
	}
	return &viewer{sess: &s, token: tok, csrf: d.seal.csrf(&s)}, nil
}

// publicURL is where the user reached the dashboard.
func (d *Dashboard) publicURL(r *http.Request) string {
	if d.cfg.PublicURL != "" {
		return strings.TrimSuffix(d.cfg.PublicURL, "/")
	}
	scheme := "https"
	if r.TLS == nil && r.Header.Get("X-Forwarded-Proto") != "https" {
		scheme = "http"
	}
	return scheme + "://" + r.Host
}

// oauthState is the state cookie: the random state sent to GitHub and where to go after.
type oauthState struct {
	State string `json:"s"`
	Next  string `json:"n"`
	// Expires bounds the sign-in (Unix seconds).
	Expires int64 `json:"e"`
}

// login sends the user to GitHub's authorize page with a fresh state, remembered in a signed
// cookie.
func (d *Dashboard) login(w http.ResponseWriter, r *http.Request) {
	if d.cfg.ClientID == "" || d.cfg.ClientSecret == "" {
		d.errorPage(w, http.StatusServiceUnavailable, "Sign-in is not configured", "Set GITHUB_OAUTH_CLIENT_ID and GITHUB_OAUTH_CLIENT_SECRET (the App's OAuth client) to sign in to the dashboard.")
		return
	}
	st := oauthState{State: randomString(24), Next: sameOriginPath(r.URL.Query().Get("next")), Expires: time.Now().Add(10 * time.Minute).Unix()}
	value, err := d.seal.seal(st)
	if err != nil {
		d.errorPage(w, http.StatusInternalServerError, "Could not start the sign-in", err.Error())
		return
	}
	setCookie(w, stateCookie, value, 10*time.Minute)
	cfg := *d.oauth
	cfg.RedirectURL = d.publicURL(r) + "/oauth/callback"
	http.Redirect(w, r, cfg.AuthCodeURL(st.State), http.StatusFound)
}

// callback finishes the sign-in: the state must match the cookie's, the code is exchanged for
// the user's token, and GET /user names the user.
func (d *Dashboard) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var st oauthState
	c, err := r.Cookie(stateCookie)
	if err == nil {
		err = d.seal.open(c.Value, &st)
	}
	setCookie(w, stateCookie, "", -1)
	switch {
	case err != nil:
		d.errorPage(w, http.StatusBadRequest, "Sign-in failed", "The sign-in did not start here, or its cookie was lost ("+err.Error()+"). Sign in again.")
		return
	case time.Now().Unix() > st.Expires:
		d.errorPage(w, http.StatusBadRequest, "Sign-in failed", "The sign-in took longer than 10 minutes. Sign in again.")
		return
	case q.Get("state") == "" || !subtleEqual(q.Get("state"), st.State):
		d.errorPage(w, http.StatusBadRequest, "Sign-in failed", "The state GitHub sent back is not the one this sign-in started with. Sign in again.")
		return
	case q.Get("error") != "":
		d.errorPage(w, http.StatusForbidden, "Sign-in failed", "GitHub answered "+q.Get("error")+": "+q.Get("error_description"))
		return
	case q.Get("code") == "":
		d.errorPage(w, http.StatusBadRequest, "Sign-in failed", "GitHub sent no code back.")
		return
	}
	ctx := context.WithValue(r.Context(), oauth2.HTTPClient, d.cfg.HTTPClient)
	cfg := *d.oauth
	cfg.RedirectURL = d.publicURL(r) + "/oauth/callback"
	tok, err := cfg.Exchange(ctx, q.Get("code"))
	if err != nil {
		var re *oauth2.RetrieveError
		msg := err.Error()
		if errors.As(err, &re) && re.ErrorCode != "" {
			msg = re.ErrorCode + ": " + re.ErrorDescription
		}
		d.errorPage(w, http.StatusBadGateway, "Sign-in failed", "GitHub did not exchange the code for a token ("+msg+"). Sign in again.")
		return
	}
	user, _, err := d.userClient(tok.AccessToken).Users.Get(r.Context(), "")
	if err != nil {
		d.errorPage(w, http.StatusBadGateway, "Sign-in failed", "GitHub did not say who signed in: "+err.Error())
		return
	}
	sealed, err := d.seal.encrypt(tok.AccessToken)
	if err != nil {
		d.errorPage(w, http.StatusInternalServerError, "Sign-in failed", err.Error())
		return
	}
	expires := time.Now().Add(sessionLifetime)
	if !tok.Expiry.IsZero() && tok.Expiry.Before(expires) {
		expires = tok.Expiry
	}
	value, err := d.seal.seal(session{Login: user.GetLogin(), Token: sealed, Nonce: randomString(18), Expires: expires.Unix()})
	if err != nil {
		d.errorPage(w, http.StatusInternalServerError, "Sign-in failed", err.Error())
		return
	}
	setCookie(w, sessionCookie, value, time.Until(expires))
	http.Redirect(w, r, sameOriginPath(st.Next), http.StatusSeeOther)
}

// logout ends the session (a POST with the session's CSRF token).
func (d *Dashboard) logout(w http.ResponseWriter, r *http.Request) {
	v, err := d.viewer(r)
	if err == nil && !d.seal.checkCSRF(v.sess, r.PostFormValue("csrf")) {
		d.errorPage(w, http.StatusForbidden, "Not signed out", "The form's CSRF token does not match the session. Reload the page and try again.")
		return
	}
	setCookie(w, sessionCookie, "", -1)
	// Always the sign-in page: logout takes no return path.
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// userClient is a GitHub client acting as the signed-in user.
func (d *Dashboard) userClient(token string) *github.Client {
	c := github.NewClient(d.cfg.HTTPClient).WithAuthToken(token)
	if d.cfg.APIURL != "" {
		base := d.cfg.APIURL
		if !strings.HasSuffix(base, "/") {
			base += "/"
		}
		if u, err := url.Parse(base); err == nil {
			c.BaseURL = u
		}
	}
	return c
}

// accessCache remembers, briefly, what a user may do in a repository.
type accessCache struct {
	ttl     time.Duration
	mu      sync.Mutex
	entries map[string]accessEntry
}

type accessEntry struct {
	// ok is whether the user may read the repository, or answer the debate's checkpoint.
	ok bool
	// need is the permission a checkpoint answer needs.
	need    string
	expires time.Time
}

// get returns the entry under key, unless there is none or it expired.
func (c *accessCache) get(key string, now time.Time) (accessEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	return e, ok && now.Before(e.expires)
}

// put remembers e under key for the cache's time; a cache grown large forgets what expired.
func (c *accessCache) put(key string, e accessEntry, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) > 10000 {
		for k, old := range c.entries {
			if now.After(old.expires) {
				delete(c.entries, k)
			}
		}
	}
	e.expires = now.Add(c.ttl)
	c.entries[key] = e
}

// canRead reports whether the viewer may read a repository: GET /repos/{owner}/{repo} with the
// user's token is 404 for a private repository the user cannot read, and says the user's
// permissions otherwise (any of them reads; anyone reads a public repository). A failure to ask
// is an error, and is not remembered (it shows nothing).
func (d *Dashboard) canRead(ctx context.Context, v *viewer, repository string) (bool, error) {
	key := tokenKey(v.token) + "\x00" + repository
	now := time.Now()
	if e, ok := d.access.get(key, now); ok {
		return e.ok, nil
	}
	owner, name, found := strings.Cut(repository, "/")
	if !found {
		return false, nil
	}
	repo, _, err := d.userClient(v.token).Repositories.Get(ctx, owner, name)
	ok := false
	var er *github.ErrorResponse
	switch {
	case errors.As(err, &er) && er.Response != nil && (er.Response.StatusCode == http.StatusNotFound || er.Response.StatusCode == http.StatusForbidden):
	case err != nil:
		return false, fmt.Errorf("failed to ask GitHub whether %s may read %s: %w", v.sess.Login, repository, err)
	default:
		p := repo.GetPermissions()
		ok = p["admin"] || p["maintain"] || p["push"] || p["triage"] || p["pull"] || !repo.GetPrivate()
	}
	d.access.put(key, accessEntry{ok: ok}, now)
	return ok, nil
}

// mayAnswer reports whether the viewer may answer the debate's checkpoint, and the permission
// it needs, remembered as briefly as read access: a paused page asks on every update.
func (d *Dashboard) mayAnswer(ctx context.Context, v *viewer, debateID string) (bool, string, error) {
	key := tokenKey(v.token) + "\x00checkpoint\x00" + debateID
	now := time.Now()
	if e, ok := d.access.get(key, now); ok {
		return e.ok, e.need, nil
	}
	yes, need, _, err := d.cfg.Checkpoints.Permission(ctx, debateID, v.sess.Login)
	if err != nil {
		return false, "", err
	}
	d.access.put(key, accessEntry{ok: yes, need: need}, now)
	return yes, need, nil
}

// readable returns the repositories among repos the viewer can read, asking GitHub for those
// not in the cache a few at a time.
func (d *Dashboard) readable(ctx context.Context, v *viewer, repos []string) ([]string, error) {
	ok := make([]bool, len(repos))
	errs := make([]error, len(repos))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, repo := range repos {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ok[i], errs[i] = d.canRead(ctx, v, repo)
		}()
	}
	wg.Wait()
	var out []string
	for i, repo := range repos {
		if ok[i] {
			out = append(out, repo)
		}
	}
	return out, errors.Join(errs...)
}

// Login is the signed-in user's login, for the pages.
func (v *viewer) Login() string { return v.sess.Login }

// CSRF is the session's CSRF token, which the pages' forms post.
func (v *viewer) CSRF() string { return v.csrf }
