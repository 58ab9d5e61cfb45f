package githubtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The fake's web flow answers as GitHub does: the authorize page sends the browser back with a
// code and the state; the code is exchanged once, for JSON or a form as the Accept header asks,
// and errors come back with status 200 and an error code; the token names its user on GET /user
// and sees only the private repositories the user may read.
func TestOAuthWebFlow(t *testing.T) {
	s := New(t)
	s.SetOAuth(OAuth{ClientID: "Iv1.c", ClientSecret: "sec", User: "alice"})
	s.Permissions["acme/private:alice"] = "write"
	s.PRs["acme/private#1"] = &PR{HeadSHA: "abc"}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	authorize := func(clientID string) *http.Response {
		t.Helper()
		resp, err := noFollow.Get(s.URL + "/login/oauth/authorize?" + url.Values{"client_id": {clientID}, "redirect_uri": {"https://app.example/cb"}, "state": {"st8"}}.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := authorize("other"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown client_id answered %d", resp.StatusCode)
	}
	resp := authorize("Iv1.c")
	back, _ := url.Parse(resp.Header.Get("Location"))
	code := back.Query().Get("code")
	if resp.StatusCode != http.StatusFound || back.Host != "app.example" || back.Query().Get("state") != "st8" || code == "" {
		t.Fatalf("authorize answered %d to %s", resp.StatusCode, back)
	}
	exchange := func(form url.Values, accept string) (string, map[string]string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/login/oauth/access_token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("access_token answered %d", resp.StatusCode)
		}
		body, _ := io.ReadAll(resp.Body)
		out := map[string]string{}
		if accept == "application/json" {
			if err := json.Unmarshal(body, &out); err != nil {
				t.Fatalf("not JSON: %s", body)
			}
		} else {
			vals, err := url.ParseQuery(string(body))
			if err != nil {
				t.Fatalf("not a form: %s", body)
			}
			for k := range vals {
				out[k] = vals.Get(k)
			}
		}
		return resp.Header.Get("Content-Type"), out
	}
	form := url.Values{"client_id": {"Iv1.c"}, "client_secret": {"wrong"}, "code": {code}}
	if _, out := exchange(form, "application/json"); out["error"] != "incorrect_client_credentials" {
		t.Errorf("a wrong secret: %v", out)
	}
	form.Set("client_secret", "sec")
	form.Set("redirect_uri", "https://elsewhere.example/cb")
	if _, out := exchange(form, "application/json"); out["error"] != "redirect_uri_mismatch" {
		t.Errorf("another redirect_uri: %v", out)
	}
	form.Del("redirect_uri")
	ct, out := exchange(form, "")
	token := out["access_token"]
	if !strings.HasPrefix(ct, "application/x-www-form-urlencoded") || !strings.HasPrefix(token, "ghu_") || out["token_type"] != "bearer" {
		t.Fatalf("exchange without Accept: %s %v", ct, out)
	}
	if _, out := exchange(form, "application/json"); out["error"] != "bad_verification_code" {
		t.Errorf("a code used twice: %v", out)
	}
	get := func(path, tok string) (int, map[string]any) {
		req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&v)
		return resp.StatusCode, v
	}
	if status, user := get("/user", token); status != 200 || user["login"] != "alice" {
		t.Errorf("GET /user: %d %v", status, user)
	}
	if status, repo := get("/repos/acme/private", token); status != 200 || repo["permissions"].(map[string]any)["push"] != true || repo["permissions"].(map[string]any)["admin"] != false {
		t.Errorf("alice's view of acme/private: %d %v", status, repo)
	}
	if status, _ := get("/repos/acme/private", s.UserToken("mallory")); status != http.StatusNotFound {
		t.Errorf("mallory's view of acme/private: %d, want 404", status)
	}
	if status, _ := get("/user", "ghs_installation"); status != http.StatusForbidden {
		t.Errorf("GET /user with an installation token: %d", status)
	}
	s.SetOAuth(OAuth{ClientID: "Iv1.c", ClientSecret: "sec", Deny: true})
	back, _ = url.Parse(authorize("Iv1.c").Header.Get("Location"))
	if back.Query().Get("error") != "access_denied" || back.Query().Get("state") != "st8" || back.Query().Get("code") != "" {
		t.Errorf("a denied authorization came back as %s", back)
	}
}
