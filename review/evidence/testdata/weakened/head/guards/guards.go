// Package guards serves files, fetches URLs and runs tools, checking its input first.
package guards

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

const root = "/srv/files"

// Health answers probes; it was added above the other handlers, shifting their lines.
func Health(w http.ResponseWriter, _ *http.Request) {
	w.WriteHeader(http.StatusNoContent)
}

// ServeFile serves a file under root.
func ServeFile(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("f")
	f, err := os.Open(filepath.Join(root, name)) // want: guard-removed
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	_, _ = io.Copy(w, f)
}

// Proxy fetches a URL on an allowed host.
func Proxy(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("url")
	resp, err := http.Get(target) // want: guard-removed
	if err != nil {
		http.Error(w, "failed", http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	_, _ = io.Copy(w, resp.Body)
}

// Greet greets by name.
func Greet(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "<p>Hello %s</p>", r.FormValue("name")) // want: guard-removed
}

func validTool(name string) bool { return name == "convert" || name == "identify" }

// Run runs an allowed tool.
func Run(r *http.Request) ([]byte, error) {
	tool := r.FormValue("tool")
	out, err := exec.Command(tool, "-version").Output() // want: guard-removed
	if !validTool(tool) {
		return nil, errors.New("tool not allowed")
	}
	return out, err
}

// Show serves a static file through serve.
func Show(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("f")
	serve(w, name)
}

func serve(w http.ResponseWriter, name string) {
	b, err := os.ReadFile(filepath.Join("static", name)) // want: guard-removed
	if err == nil {
		_, _ = w.Write(b)
	}
}

// load reads a report; its caller checks the name.
func load(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join("reports", name))
}

// Report serves a report.
func Report(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("r")
	if !filepath.IsLocal(name) {
		http.Error(w, "bad name", http.StatusBadRequest)
		return
	}
	b, err := load(name)
	if err == nil {
		_, _ = w.Write(b)
	}
}

// Avatar reads an avatar, refusing names with dots.
func Avatar(name string) ([]byte, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join("avatars", name))
}

// Config reads the configuration when asked by name.
func Config(name string) ([]byte, error) {
	return os.ReadFile("config.json")
}

var namePattern = regexp.MustCompile(`^[a-z0-9_-]+\.png$`)

func checkName(name string) error {
	if !namePattern.MatchString(name) {
		return errors.New("bad name")
	}
	return nil
}

// Clone clones a repository the caller names; "--" keeps a name starting with "-" from being an
// option.
func Clone(repo, dir string) error {
	return exec.Command("git", "clone", repo, dir).Run() // want: guard-removed
}

// Deliver posts a payload.
func Deliver(target string, body io.Reader) error {
	client := &http.Client{} // want: guard-removed
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
	return os.Open(filepath.Join(req.Dst, req.Sub)) // want: guard-removed
}
