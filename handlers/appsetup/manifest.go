// Package appsetup registers debatebot's GitHub App by GitHub's App manifest flow: before the
// App is configured, serve shows a setup page that posts the manifest built from app.yml to
// GitHub, and a callback exchanges the code GitHub sends back for the App's id, private key,
// webhook secret and OAuth client, which it stores for serve to run with.
package appsetup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"gopkg.in/yaml.v3"
)

// appYAML is app.yml: the fields of GitHub's App manifest that debatebot sets.
type appYAML struct {
	Name           string `yaml:"name"`
	URL            string `yaml:"url"`
	Description    string `yaml:"description"`
	HookAttributes struct {
		URL    string `yaml:"url"`
		Active *bool  `yaml:"active"`
	} `yaml:"hook_attributes"`
	CallbackURLs       []string          `yaml:"callback_urls"`
	Public             bool              `yaml:"public"`
	DefaultPermissions map[string]string `yaml:"default_permissions"`
	DefaultEvents      []string          `yaml:"default_events"`
}

// Manifest is the App manifest GitHub's new-App page takes (its JSON field names).
type Manifest struct {
	Name           string `json:"name"`
	URL            string `json:"url"`
	Description    string `json:"description,omitempty"`
	HookAttributes struct {
		URL    string `json:"url"`
		Active bool   `json:"active"`
	} `json:"hook_attributes"`
	RedirectURL           string            `json:"redirect_url"`
	CallbackURLs          []string          `json:"callback_urls,omitempty"`
	Public                bool              `json:"public"`
	DefaultPermissions    map[string]string `json:"default_permissions"`
	DefaultEvents         []string          `json:"default_events"`
	RequestOAuthOnInstall bool              `json:"request_oauth_on_install"`
}

// Paths of serve that the manifest names: the webhook, the setup callback, the sign-in callback.
const (
	HookPath     = "/api/github/hook"
	PagePath     = "/setup"
	CallbackPath = "/setup/callback"
)

// ParseManifest reads app.yml and builds the App's manifest for a server that users and GitHub
// reach at publicURL: the webhook, OAuth callback and redirect URLs are publicURL with the paths
// app.yml and serve give them.
func ParseManifest(appYML []byte, publicURL string) (*Manifest, error) {
	var a appYAML
	dec := yaml.NewDecoder(bytes.NewReader(appYML))
	dec.KnownFields(true)
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("app.yml: %w", err)
	}
	if strings.TrimSpace(a.Name) == "" || a.URL == "" || len(a.DefaultPermissions) == 0 || len(a.DefaultEvents) == 0 {
		return nil, fmt.Errorf("app.yml: the name, url, default_permissions and default_events must be set")
	}
	for k, v := range a.DefaultPermissions {
		if v != "read" && v != "write" {
			return nil, fmt.Errorf("app.yml: default_permissions.%s is %q: want read or write", k, v)
		}
	}
	pub, err := url.Parse(strings.TrimSuffix(publicURL, "/"))
	if err != nil || (pub.Scheme != "https" && pub.Scheme != "http") || pub.Host == "" {
		return nil, fmt.Errorf("the public URL %q is not an http(s) URL", publicURL)
	}
	at := func(path string) string { return pub.String() + path }
	m := &Manifest{Name: a.Name, URL: a.URL, Description: a.Description, Public: a.Public,
		RedirectURL: at(CallbackPath), DefaultPermissions: a.DefaultPermissions, DefaultEvents: a.DefaultEvents}
	hook := HookPath
	if u, err := url.Parse(a.HookAttributes.URL); err == nil && u.Path != "" {
		hook = u.Path
	}
	m.HookAttributes.URL = at(hook)
	m.HookAttributes.Active = a.HookAttributes.Active == nil || *a.HookAttributes.Active
	for _, c := range a.CallbackURLs {
		if u, err := url.Parse(c); err == nil && u.Path != "" {
			m.CallbackURLs = append(m.CallbackURLs, at(u.Path))
		}
	}
	return m, nil
}

// JSON is the manifest as the new-App page's form field takes it.
func (m *Manifest) JSON() (string, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("failed to encode the App's manifest: %w", err)
	}
	return string(b), nil
}
