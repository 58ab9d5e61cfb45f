package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/store"
)

func seedDismissals(t testing.TB, st *store.Store) {
	t.Helper()
	seed(t, st)
	at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	for _, d := range []*store.Dismissal{
		{Repository: "acme/shop", Fingerprint: "fp1-shop", Rule: "sql-injection", Path: "internal/export/users.go", Line: 30, PRNumber: 7, By: "alice",
			Reason: "the value is an enum; token " + secretToken, CommentURL: "https://github.com/acme/shop/pull/7#discussion_r9", Excerpt: "h.db.Query receives SQL built from strings", At: at},
		{Repository: "acme/private", Fingerprint: "fp1-private", Rule: "hardcoded-secret", Path: "keys.go", Line: 4, PRNumber: 3, By: "alice",
			Reason: "a revoked test key", CommentURL: "javascript:alert(1)", Excerpt: "signing key in source", At: at},
	} {
		if _, err := st.Dismiss(context.Background(), d); err != nil {
			t.Fatal(err)
		}
	}
}

// The dismissals page lists only the repositories the viewer can read, redacted, with no link
// that is not GitHub's; an undo needs the session's CSRF token and write access, and is refused
// for a repository the viewer cannot read as for one that has no such dismissal.
func TestDismissalsPage(t *testing.T) {
	e := newEnvWith(t, seedDismissals)
	mallory := e.signIn("mallory")
	status, page := get(t, mallory, e.url+"/dismissals")
	if status != 200 || !strings.Contains(page, "sql-injection") || !strings.Contains(page, "the value is an enum") || !strings.Contains(page, `href="https://github.com/acme/shop/pull/7#discussion_r9"`) {
		t.Fatalf("mallory's dismissals page (%d):\n%s", status, page)
	}
	for _, leak := range []string{"acme/private", "hardcoded-secret", "revoked test key", secretToken} {
		if strings.Contains(page, leak) {
			t.Errorf("mallory's page shows %q", leak)
		}
	}
	if _, filtered := get(t, mallory, e.url+"/dismissals?repo=acme%2Fprivate"); strings.Contains(filtered, "hardcoded-secret") {
		t.Error("a filter by the private repository shows its dismissal")
	}
	post := func(c *http.Client, form url.Values) int {
		t.Helper()
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		resp, err := c.PostForm(e.url+"/dismissals/undo", form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	token := csrfOf(t, page)
	if s := post(mallory, url.Values{"csrf": {token}, "repo": {"acme/shop"}, "fingerprint": {"fp1-shop"}}); s != http.StatusForbidden {
		t.Errorf("a reader's undo answered %d", s)
	}
	if s := post(mallory, url.Values{"csrf": {token}, "repo": {"acme/private"}, "fingerprint": {"fp1-private"}}); s != http.StatusNotFound {
		t.Errorf("an undo in a repository mallory cannot read answered %d", s)
	}

	alice := e.signIn("alice")
	_, page = get(t, alice, e.url+"/dismissals")
	if !strings.Contains(page, "hardcoded-secret") || strings.Contains(page, "javascript:") {
		t.Errorf("alice's page lacks the private dismissal or links a script:\n%s", page)
	}
	if s := post(alice, url.Values{"csrf": {"forged"}, "repo": {"acme/private"}, "fingerprint": {"fp1-private"}}); s != http.StatusForbidden {
		t.Errorf("an undo with a forged CSRF token answered %d", s)
	}
	if s := post(alice, url.Values{"csrf": {csrfOf(t, page)}, "repo": {"acme/private"}, "fingerprint": {"fp1-private"}}); s != http.StatusSeeOther {
		t.Fatalf("alice's undo answered %d", s)
	}
	if s := post(alice, url.Values{"csrf": {csrfOf(t, page)}, "repo": {"acme/private"}, "fingerprint": {"fp1-private"}}); s != http.StatusNotFound {
		t.Errorf("undoing twice answered %d", s)
	}
	left, err := e.st.Dismissals(context.Background(), []string{"acme/shop", "acme/private"})
	if err != nil || len(left) != 1 || left[0].Fingerprint != "fp1-shop" {
		t.Errorf("dismissals left = %+v, %v", left, err)
	}
}
