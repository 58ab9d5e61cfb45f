package githubtest

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// OAuth is the fake's OAuth App (a GitHub App's user-to-server web flow): its client, and the
// user who is signed in to GitHub in the browser, whom the authorize page signs in at once (as
// GitHub does for a user who authorized the App before).
type OAuth struct {
	ClientID, ClientSecret string
	// User is the login the authorize page signs in; Deny makes it answer access_denied, as
	// when the user clicks Cancel.
	User string
	Deny bool
}

type oauthCode struct {
	user, clientID, redirect string
	expires                  time.Time
}

// oauthState is the OAuth part of the fake (s.mu held to use it).
type oauthState struct {
	codes map[string]oauthCode
	// users maps a user-to-server token the fake issued to its user's login.
	users map[string]string
}

// SetOAuth configures the fake's OAuth App.
func (s *Server) SetOAuth(o OAuth) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.oauth = o
	if s.oauthState.codes == nil {
		s.oauthState = oauthState{codes: map[string]oauthCode{}, users: map[string]string{}}
	}
}

// SignInAs changes the user the authorize page signs in.
func (s *Server) SignInAs(login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.oauth.User = login
}

func randomValue(prefix string, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = tokenChars[int(b[i])%len(tokenChars)]
	}
	return prefix + string(b)
}

// serveOAuth answers the web flow's two endpoints on the web host, as GitHub does; it reports
// false for any other path.
func (s *Server) serveOAuth(w http.ResponseWriter, r *http.Request, body []byte) bool {
	var op string
	switch {
	case r.URL.Path == "/login/oauth/authorize" && r.Method == http.MethodGet:
		op = "oauth/authorize"
	case r.URL.Path == "/login/oauth/access_token" && r.Method == http.MethodPost:
		op = "oauth/access_token"
	default:
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, Call{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Accept: r.Header.Get("Accept"), Body: string(body), Operation: op})
	if s.oauthState.codes == nil {
		http.Error(w, "Not Found", http.StatusNotFound)
		return true
	}
	if op == "oauth/authorize" {
		s.authorize(w, r)
	} else {
		s.accessToken(w, r, body)
	}
	return true
}

// authorize redirects back to redirect_uri with a code and the state, for the signed-in user.
// An unknown client_id is GitHub's 404 page; a denied authorization comes back as
// error=access_denied.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("client_id") != s.oauth.ClientID {
		http.Error(w, "Not Found", http.StatusNotFound)
		return
	}
	back, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || back.Host == "" {
		http.Error(w, "The redirect_uri is not valid.", http.StatusBadRequest)
		return
	}
	out := back.Query()
	if s.oauth.Deny {
		out.Set("error", "access_denied")
		out.Set("error_description", "The user has denied your application access.")
		out.Set("error_uri", "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-authorization-request-errors/#access-denied")
	} else {
		code := randomValue("", 20)
		s.oauthState.codes[code] = oauthCode{user: s.oauth.User, clientID: q.Get("client_id"), redirect: q.Get("redirect_uri"), expires: time.Now().Add(10 * time.Minute)}
		out.Set("code", code)
	}
	if st := q.Get("state"); st != "" {
		out.Set("state", st)
	}
	back.RawQuery = out.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// accessToken exchanges a code for a user-to-server token. GitHub answers 200 even for errors,
// with an error code (bad_verification_code, incorrect_client_credentials,
// redirect_uri_mismatch); JSON when asked with Accept: application/json, form-encoded
// otherwise. A code is good once, for ten minutes.
func (s *Server) accessToken(w http.ResponseWriter, r *http.Request, body []byte) {
	params := r.URL.Query()
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		var in map[string]string
		_ = json.Unmarshal(body, &in)
		for k, v := range in {
			params.Set(k, v)
		}
	} else if form, err := url.ParseQuery(string(body)); err == nil {
		for k, v := range form {
			params[k] = v
		}
	}
	if id, secret, ok := r.BasicAuth(); ok {
		params.Set("client_id", id)
		params.Set("client_secret", secret)
	}
	answer := func(v map[string]string) {
		if strings.Contains(r.Header.Get("Accept"), "application/json") {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			_ = json.NewEncoder(w).Encode(v)
			return
		}
		form := url.Values{}
		for k, x := range v {
			form.Set(k, x)
		}
		w.Header().Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
		_, _ = w.Write([]byte(form.Encode()))
	}
	fail := func(code, desc, anchor string) {
		answer(map[string]string{"error": code, "error_description": desc,
			"error_uri": "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#" + anchor})
	}
	if params.Get("client_id") != s.oauth.ClientID || params.Get("client_secret") != s.oauth.ClientSecret {
		fail("incorrect_client_credentials", "The client_id and/or client_secret passed are incorrect.", "incorrect-client-credentials")
		return
	}
	c, ok := s.oauthState.codes[params.Get("code")]
	if !ok || time.Now().After(c.expires) || c.clientID != params.Get("client_id") {
		fail("bad_verification_code", "The code passed is incorrect or expired.", "bad-verification-code")
		return
	}
	if uri := params.Get("redirect_uri"); uri != "" && uri != c.redirect {
		fail("redirect_uri_mismatch", "The redirect_uri MUST match the registered callback URL for this application.", "redirect-uri-mismatch")
		return
	}
	delete(s.oauthState.codes, params.Get("code"))
	tok := randomValue("ghu_", 36)
	s.oauthState.users[tok] = c.user
	answer(map[string]string{"access_token": tok, "token_type": "bearer", "scope": ""})
}

// userOf returns the login of the user-to-server token a request carries, or "" (s.mu held).
func (s *Server) userOf(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	for _, p := range []string{"token ", "Bearer ", "bearer "} {
		auth = strings.TrimPrefix(auth, p)
	}
	return s.oauthState.users[auth]
}

// UserToken issues a user-to-server token for login without the web flow (tests of what a
// signed-in user sees).
func (s *Server) UserToken(login string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.oauthState.users == nil {
		s.oauthState = oauthState{codes: map[string]oauthCode{}, users: map[string]string{}}
	}
	tok := randomValue("ghu_", 36)
	s.oauthState.users[tok] = login
	return tok
}

// userRepoJSON answers GET /repos/{owner}/{repo} for a user's token: a private repository the
// user cannot read is 404, as GitHub hides it; otherwise the repository with the user's
// permissions (s.mu held).
func (s *Server) userRepoJSON(w http.ResponseWriter, owner, repo, user string) {
	name := owner + "/" + repo
	role := s.Permissions[name+":"+user]
	rank := map[string]int{"read": 1, "triage": 2, "write": 3, "maintain": 4, "admin": 5}[role]
	if rank == 0 {
		s.writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	s.writeJSON(w, http.StatusOK, map[string]any{
		"id": 1296269, "name": repo, "full_name": name, "owner": map[string]any{"login": owner, "type": "Organization"},
		"private": true, "visibility": "private", "html_url": s.URL + "/" + name, "default_branch": "main",
		"permissions": map[string]bool{"pull": rank >= 1, "triage": rank >= 2, "push": rank >= 3, "maintain": rank >= 4, "admin": rank >= 5},
	})
}

// authenticatedUser answers GET /user: the token's user; an installation token is refused as
// GitHub refuses it (s.mu held).
func (s *Server) authenticatedUser(w http.ResponseWriter, r *http.Request) {
	login := s.userOf(r)
	if login == "" {
		s.writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	s.writeJSON(w, http.StatusOK, map[string]any{"login": login, "id": len(login) * 1000, "type": "User", "name": login,
		"avatar_url": fmt.Sprintf("%s/avatars/%s", s.URL, login), "html_url": s.URL + "/" + login})
}
