package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"gopkg.in/yaml.v3"
)

// appKeys are the settings the App's stored credentials may hold.
var appKeys = []string{"GITHUB_APP_INTEGRATION_ID", "GITHUB_APP_WEBHOOK_SECRET", "GITHUB_APP_PRIVATE_KEY", "GITHUB_OAUTH_CLIENT_ID", "GITHUB_OAUTH_CLIENT_SECRET"}

// AppFile is where serve keeps the credentials of the App its setup page registered:
// DEBATEBOT_APP_FILE, else github-app.yml in the data directory (DataDir); "" when neither is
// known (no home directory).
func AppFile(getenv func(string) string) string {
	if p := getenv("DEBATEBOT_APP_FILE"); p != "" {
		return p
	}
	dir, err := DataDir(getenv)
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "github-app.yml")
}

// AppCredentials are what GitHub gives for an App registered from its manifest.
type AppCredentials struct {
	ID                        int64
	Slug, HTMLURL             string
	WebhookSecret, PrivateKey string
	ClientID, ClientSecret    string
}

// ErrAppStored is SaveApp's error when credentials are stored already: an App is registered
// once, and its credentials are never overwritten.
var ErrAppStored = errors.New("the App's credentials are stored already")

// SaveApp writes the App's credentials to path (0600, its directory 0700 when created), with
// the setting names of the environment as keys, so that serve reads them when the environment
// and DEBATEBOT_CONFIG do not set them. It never overwrites a file (ErrAppStored).
func SaveApp(path string, c *AppCredentials) error {
	if path == "" {
		return errors.New("nowhere to store the App's credentials: set DEBATEBOT_APP_FILE or HOME")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("failed to create the directory of %s: %w", path, err)
	}
	doc := map[string]string{
		"GITHUB_APP_INTEGRATION_ID": strconv.FormatInt(c.ID, 10), "GITHUB_APP_WEBHOOK_SECRET": c.WebhookSecret,
		"GITHUB_APP_PRIVATE_KEY": c.PrivateKey, "GITHUB_OAUTH_CLIENT_ID": c.ClientID, "GITHUB_OAUTH_CLIENT_SECRET": c.ClientSecret,
	}
	body, err := yaml.Marshal(doc)
	if err != nil {
		return fmt.Errorf("failed to encode the App's credentials: %w", err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# The GitHub App %s (%s), registered by debatebot's setup page.\n# Its private key and secrets: keep this file to yourself (mode 0600).\n", c.Slug, c.HTMLURL)
	b.Write(body)
	// Written to a temporary file in the same directory, then linked into place: the file is
	// whole or absent, and a file that appeared meanwhile is not replaced.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".github-app-*.yml")
	if err != nil {
		return fmt.Errorf("failed to store the App's credentials: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("failed to store the App's credentials: %w", err)
	}
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		return fmt.Errorf("failed to store the App's credentials: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("failed to store the App's credentials: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("failed to store the App's credentials: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s: %w", path, ErrAppStored)
		}
		return fmt.Errorf("failed to store the App's credentials in %s: %w", path, err)
	}
	return nil
}

// readAppFile reads the stored credentials at path; none when there is no such file.
func readAppFile(path string, readFile func(string) ([]byte, error)) (map[string]string, error) {
	out := map[string]string{}
	if path == "" {
		return out, nil
	}
	data, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read the App's stored credentials %s: %w", path, err)
	}
	var raw map[string]any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, &Error{File: path, Problems: yamlProblems(err)}
	}
	known := map[string]bool{}
	for _, k := range appKeys {
		known[k] = true
	}
	for k, v := range raw {
		if !known[k] {
			return nil, &Error{File: path, Problems: []string{fmt.Sprintf("unknown key %q (it holds only the App's id, webhook secret, private key and OAuth client)", k)}}
		}
		out[k] = fmt.Sprint(v)
	}
	return out, nil
}
