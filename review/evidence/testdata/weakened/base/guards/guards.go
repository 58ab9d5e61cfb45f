// Package guards serves files, fetches URLs and runs tools, checking its input first.
package guards

import (
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

const root = "/srv/files"

var allowedHosts = map[string]bool{"api.example.com": true}

// ServeFile serves a file under root.
func ServeFile(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("f")
	if !filepath.IsLocal(name) {
		http.Error(w, "bad name", http.StatusBadRequest)
		return
	}
	f, err := os.Open(filepath.Join(root, name))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	_, _ = io.Copy(w, f)
}

// Proxy fetches a URL on an allowed host.
func Proxy(w http.ResponseWriter, r *http.Request) {
	raw := r.FormValue("url")
	u, err := url.Parse(raw)
	if err != nil {
		http.Error(w, "bad url", http.StatusBadRequest)
		return
	}
	if !allowedHosts[u.Hostname()] {
		http.Error(w, "host not allowed", http.StatusForbidden)
		return
	}
	resp, err := http.Get(u.String())
	if err != nil {
		http.Error(w, "failed", http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	_, _ = io.Copy(w, resp.Body)
}

// Greet greets by name.
func Greet(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "<p>Hello %s</p>", html.EscapeString(r.FormValue("name")))
}

func validTool(name string) bool { return name == "convert" || name == "identify" }

// Run runs an allowed tool.
func Run(r *http.Request) ([]byte, error) {
	tool := r.FormValue("tool")
	if !validTool(tool) {
		return nil, errors.New("tool not allowed")
	}
	return exec.Command(tool, "-version").Output()
}

// Show serves a static file through serve.
func Show(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("f")
	if strings.Contains(name, "..") {
		http.Error(w, "bad name", http.StatusBadRequest)
		return
	}
	serve(w, name)
}

func serve(w http.ResponseWriter, name string) {
	b, err := os.ReadFile(filepath.Join("static", name))
	if err == nil {
		_, _ = w.Write(b)
	}
}

// load reads a report; it checks the name itself.
func load(name string) ([]byte, error) {
	if !filepath.IsLocal(name) {
		return nil, errors.New("bad name")
	}
	return os.ReadFile(filepath.Join("reports", name))
}

// Report serves a report.
func Report(w http.ResponseWriter, r *http.Request) {
	b, err := load(r.URL.Query().Get("r"))
	if err == nil {
		_, _ = w.Write(b)
	}
}

// Avatar reads an avatar, refusing names with dots.
func Avatar(name string) ([]byte, error) {
	if strings.Contains(name, "..") {
		return nil, errors.New("bad name")
	}
	return os.ReadFile(filepath.Join("avatars", name))
}

// Config reads the configuration when asked by name.
func Config(name string) ([]byte, error) {
	if name == "" {
		return nil, errors.New("no name")
	}
	return os.ReadFile("config.json")
}

// Clone clones a repository the caller names; "--" keeps a name starting with "-" from being an
// option.
func Clone(repo, dir string) error {
	return exec.Command("git", "clone", "--", repo, dir).Run()
}

// Deliver posts a payload and refuses redirects.
func Deliver(target string, body io.Reader) error {
	client := &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return errors.New("no redirects") },
	}
	resp, err := client.Post(target, "application/json", body)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Request asks for a subdirectory of a download.
type Request struct{ Dst, Sub string }

// Unpack opens the requested subdirectory.
func Unpack(req *Request) (*os.File, error) {
	req.Sub = filepath.Clean(req.Sub)
	if strings.HasPrefix(req.Sub, "..") {
		return nil, errors.New("subdirectory outside the download")
	}
	return os.Open(filepath.Join(req.Dst, req.Sub))
}
