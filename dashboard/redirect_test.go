package dashboard_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// browserTarget is where a browser goes with location, answered by the site at base: as the URL
// standard reads it, tabs and newlines anywhere and leading and trailing spaces are dropped, and
// a backslash in the path is a slash.
func browserTarget(t *testing.T, base, location string) *url.URL {
	t.Helper()
	s := strings.Trim(location, " \x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f")
	s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	end := strings.IndexAny(s, "?#")
	if end < 0 {
		end = len(s)
	}
	s = strings.ReplaceAll(s[:end], `\`, "/") + s[end:]
	ref, err := url.Parse(s)
	if err != nil {
		t.Fatalf("a browser could not read Location %q: %v", location, err)
	}
	return mustURL(base).ResolveReference(ref)
}

// signInWithNext signs alice in from /login?next=next, following the redirects by hand to the
// callback, and returns the callback's answer: its status and Location as sent.
func signInWithNext(t *testing.T, e *env, next string) (int, string) {
	t.Helper()
	e.gh.SignInAs("alice")
	// The round trips of a browser, by hand: an http.Client refuses a Location it cannot parse
	// before anyone sees it.
	c := e.client()
	u := e.url + "/login?next=" + url.QueryEscape(next)
	for range 3 {
		req, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			t.Fatalf("sign-in with next %q: %v", next, err)
		}
		for _, ck := range c.Jar.Cookies(req.URL) {
			req.AddCookie(ck)
		}
		resp, err := c.Transport.RoundTrip(req)
		if err != nil {
			t.Fatalf("sign-in with next %q: %v", next, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		c.Jar.SetCookies(req.URL, resp.Cookies())
		if req.URL.Path == "/oauth/callback" {
			return resp.StatusCode, resp.Header.Get("Location")
		}
		u = resp.Header.Get("Location")
	}
	t.Fatalf("sign-in with next %q did not reach the callback (at %s)", next, u)
	return 0, ""
}

// After the sign-in, the dashboard sends the user back to next only when a browser would read
// it as a page of this site; anything that could lead elsewhere goes to the list.
func TestSignInReturnsOnlyToThisSite(t *testing.T) {
	e := newEnv(t)
	hostile := []string{
		"/\t/evil.example", "/%09/evil.example", "\t//evil.example", "/\n/evil.example", "/\r\n/evil.example", "/\x00/evil.example",
		"//evil.example", "///evil.example", `/\evil.example`, `\/evil.example`, `\\evil.example`, `/\/evil.example`,
		"/%2F/evil.example", "/%2F%2Fevil.example", "/%2f%2fevil.example", "/%5Cevil.example", "/%5C%5Cevil.example",
		"https://evil.example", "https:evil.example", "//user@evil.example", "javascript:alert(1)", "JAVASCRIPT:alert(1)",
		" //evil.example", "/ /evil.example\x7f", "evil.example", "data:text/html,hi", "/\u200b/evil.example", "/\u3000/evil.example",
		"\uff0f\uff0fevil.example", "/%0d%0aSet-Cookie:x=1", "",
	}
	for _, next := range hostile {
		status, loc := signInWithNext(t, e, next)
		if status != http.StatusSeeOther || loc != "/" {
			t.Errorf("next %q: the sign-in answered %d to %q, want 303 to /", next, status, loc)
		}
		if got := browserTarget(t, e.url, loc); got.Host != mustURL(e.url).Host {
			t.Errorf("next %q: a browser would go to %s", next, got)
		}
	}
	// Look-alike slashes are no slash to a browser: at most a path of this site.
	for _, next := range []string{"/\u2215evil.example", "/\uff0fevil.example", "/\u2044\u2044evil.example"} {
		_, loc := signInWithNext(t, e, next)
		if got := browserTarget(t, e.url, loc); got.Host != mustURL(e.url).Host || !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") {
			t.Errorf("next %q: the sign-in answered %q, where a browser goes to %s", next, loc, got)
		}
	}
	kept := map[string]string{
		"/debates/abc?x=1#y":                 "/debates/abc?x=1#y",
		"/debates/shop-debate":               "/debates/shop-debate",
		"/?status=paused&repository=acme%2F": "/?status=paused&repository=acme%2F",
		"/metrics-overview":                  "/metrics-overview",
		"/debates/a%2Fb":                     "/debates/a%2Fb",
		"  /debates/abc  ":                   "/debates/abc",
	}
	for next, want := range kept {
		if status, loc := signInWithNext(t, e, next); status != http.StatusSeeOther || loc != want {
			t.Errorf("next %q: the sign-in answered %d to %q, want %q", next, status, loc, want)
		}
	}
}

// A signed-out visit comes back to the page visited, and only to it.
func TestSignedOutVisitComesBack(t *testing.T) {
	e := newEnv(t)
	e.gh.SignInAs("alice")
	c := e.client()
	resp, err := c.Get(e.url + "/debates/shop-debate?x=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Host != mustURL(e.url).Host || resp.Request.URL.RequestURI() != "/debates/shop-debate?x=1" {
		t.Errorf("the signed-out visit ended at %s with %d", resp.Request.URL, resp.StatusCode)
	}
}
