package githubtest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// ManifestApp is a GitHub App the fake registered from a manifest: what the browser posted to
// the new-App page (GitHub's App manifest flow), and what the conversion returned.
type ManifestApp struct {
	// Owner is the organisation the App was registered for, or "" for the signed-in user's.
	Owner    string
	Manifest map[string]any
	// Conversion is the conversion's answer: the App's id, slug, client, webhook secret and key.
	Conversion map[string]any
	code       string
	expires    time.Time
	converted  bool
}

// manifestState is the manifest part of the fake (s.mu held to use it).
type manifestState struct {
	apps []*ManifestApp
}

// ManifestApps lists the Apps registered from a manifest, in order.
func (s *Server) ManifestApps() []*ManifestApp {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*ManifestApp(nil), s.manifests.apps...)
}

var (
	reNewApp     = regexp.MustCompile(`^(?:/organizations/([^/]+))?/settings/apps/new$`)
	reConversion = regexp.MustCompile(`^(?:/api/v3)?/app-manifests/([^/]+)/conversions$`)
)

// serveManifest answers the two steps of GitHub's App manifest flow: the new-App page the
// browser posts the manifest to (the user's click on "Create GitHub App" included), which sends
// the browser back to the manifest's redirect_url with a code and the state; and the conversion
// of that code, within the hour, once, with no authentication, into the App's credentials. It
// reports false for any other path.
func (s *Server) serveManifest(w http.ResponseWriter, r *http.Request, body []byte) bool {
	newApp := reNewApp.FindStringSubmatch(r.URL.Path)
	conv := reConversion.FindStringSubmatch(r.URL.Path)
	if (newApp == nil || r.Method != http.MethodPost) && (conv == nil || r.Method != http.MethodPost) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if newApp != nil {
		s.calls = append(s.calls, Call{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: string(body), Operation: "web/settings-apps-new"})
		s.newManifestApp(w, r, body, newApp[1])
		return true
	}
	path := strings.TrimPrefix(r.URL.Path, "/api/v3")
	s.calls = append(s.calls, Call{Method: r.Method, Path: path, Query: r.URL.RawQuery, Accept: r.Header.Get("Accept"), Body: string(body), Operation: Operation(r.Method, path)})
	for _, a := range s.manifests.apps {
		if a.code == conv[1] && !a.converted && time.Now().Before(a.expires) {
			a.converted = true
			s.writeJSON(w, http.StatusCreated, a.Conversion)
			return true
		}
	}
	s.writeError(w, http.StatusNotFound, "Not Found")
	return true
}

// newManifestApp checks the posted manifest as GitHub's page does and registers the App.
func (s *Server) newManifestApp(w http.ResponseWriter, r *http.Request, body []byte, org string) {
	form, err := url.ParseQuery(string(body))
	if err != nil || form.Get("manifest") == "" {
		http.Error(w, "Invalid GitHub App configuration: no manifest was posted", http.StatusUnprocessableEntity)
		return
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(form.Get("manifest")), &m); err != nil {
		http.Error(w, "Invalid GitHub App configuration: the manifest is not JSON: "+err.Error(), http.StatusUnprocessableEntity)
		return
	}
	if problem := manifestProblem(m); problem != "" {
		http.Error(w, "Invalid GitHub App configuration: "+problem, http.StatusUnprocessableEntity)
		return
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	pemText := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	s.nextID++
	name, _ := m["name"].(string)
	owner := org
	if owner == "" {
		owner = "octocat"
	}
	slug := strings.ToLower(strings.ReplaceAll(name, " ", "-"))
	a := &ManifestApp{Owner: org, Manifest: m, code: randomValue("", 20), expires: time.Now().Add(time.Hour)}
	a.Conversion = map[string]any{
		"id": s.nextID, "slug": slug, "node_id": fmt.Sprintf("A_%d", s.nextID), "name": name,
		"owner":       map[string]any{"login": owner, "type": map[bool]string{true: "Organization", false: "User"}[org != ""]},
		"description": m["description"], "external_url": m["url"], "html_url": s.URL + "/apps/" + slug,
		"created_at": time.Now().UTC().Format(time.RFC3339), "updated_at": time.Now().UTC().Format(time.RFC3339),
		"permissions": m["default_permissions"], "events": m["default_events"],
		"client_id": randomValue("Iv1.", 16), "client_secret": randomValue("", 40),
		"webhook_secret": randomValue("", 40), "pem": string(pemText),
	}
	s.manifests.apps = append(s.manifests.apps, a)
	back, _ := url.Parse(m["redirect_url"].(string))
	q := back.Query()
	q.Set("code", a.code)
	if st := r.URL.Query().Get("state"); st != "" {
		q.Set("state", st)
	}
	back.RawQuery = q.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// manifestProblem says what GitHub would refuse in a manifest, or "".
func manifestProblem(m map[string]any) string {
	if name, _ := m["name"].(string); strings.TrimSpace(name) == "" || len(name) > 34 {
		return "name must be 1 to 34 characters"
	}
	for _, k := range []string{"url", "redirect_url"} {
		if u, _ := m[k].(string); !absoluteURL(u) {
			return k + " must be an absolute http(s) URL"
		}
	}
	hook, _ := m["hook_attributes"].(map[string]any)
	if u, _ := hook["url"].(string); !absoluteURL(u) {
		return "hook_attributes.url must be an absolute http(s) URL"
	}
	perms, _ := m["default_permissions"].(map[string]any)
	for k, v := range perms {
		if v != "read" && v != "write" {
			return fmt.Sprintf("default_permissions.%s must be read or write", k)
		}
	}
	events, _ := m["default_events"].([]any)
	if len(events) > 0 && len(perms) == 0 {
		return "default_events need permissions"
	}
	for k, v := range m {
		switch k {
		case "name", "url", "hook_attributes", "redirect_url", "callback_urls", "setup_url", "description",
			"public", "default_events", "default_permissions", "request_oauth_on_install", "setup_on_update":
		default:
			return fmt.Sprintf("unknown key %q (%v)", k, v)
		}
	}
	return ""
}

func absoluteURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}
