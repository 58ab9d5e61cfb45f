package evidence

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"golang.org/x/mod/module"
	"gopkg.in/yaml.v3"
)

// A tree written for GOPATH often records the versions of its dependencies in the file of the
// dependency manager it used: dep's Gopkg.lock, godep's Godeps/Godeps.json, glide's glide.lock,
// govendor's vendor/vendor.json, trash's and vndr's vendor.conf. Those pins are what the tree
// was written against; the latest versions of its dependencies often no longer have the API it
// calls. The synthesised go.mod requires them, as `go mod init` used to when it converted these
// files: each pin, a commit hash or a tag, becomes the version the module proxy gives for it.

// gopin is a dependency version a dependency manager's file records.
type gopin struct {
	// path is the import path the file names: a repository root, or for godep and govendor a
	// package of it.
	path string
	// rev is the commit hash (or, without one, the tag) the file records.
	rev string
}

// pinManifest is a dependency manager's file and its parser.
type pinManifest struct {
	name  string // slash-separated, relative to the tree's root
	parse func([]byte) ([]gopin, error)
}

// pinManifests are read in this order; the first present one gives the pins.
var pinManifests = []pinManifest{
	{"Gopkg.lock", parseGopkgLock},
	{"glide.lock", parseGlideLock},
	{"Godeps/Godeps.json", parseGodepsJSON},
	{"vendor/vendor.json", parseVendorJSON},
	{"vendor.conf", parseVendorConf},
}

// pinFileLimit bounds the size of a dependency manager's file read.
const pinFileLimit = 4 << 20

// readPins reads the pins of the tree at root from the first dependency manager's file it has,
// and names that file; no file is no pins and "".
func readPins(root string) ([]gopin, string, error) {
	for _, m := range pinManifests {
		name := filepath.Join(root, filepath.FromSlash(m.name))
		fi, err := os.Lstat(name)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if fi.Size() > pinFileLimit {
			return nil, m.name, fmt.Errorf("%s is larger than %d bytes", m.name, pinFileLimit)
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, m.name, fmt.Errorf("failed to read %s: %w", m.name, err)
		}
		pins, err := m.parse(data)
		if err != nil {
			return nil, m.name, fmt.Errorf("failed to parse %s: %w", m.name, err)
		}
		return cleanPins(pins), m.name, nil
	}
	return nil, "", nil
}

// cleanPins drops the pins that name no valid import path or no revision, and keeps one pin per
// path (the first), sorted by path.
func cleanPins(pins []gopin) []gopin {
	seen := map[string]bool{}
	var out []gopin
	for _, p := range pins {
		p.path, p.rev = strings.TrimSpace(p.path), strings.TrimSpace(p.rev)
		if p.rev == "" || seen[p.path] || module.CheckImportPath(p.path) != nil || !strings.Contains(p.path, ".") {
			continue
		}
		seen[p.path] = true
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// revOrTag is rev, else the tag version when rev is empty.
func revOrTag(rev, version string) string {
	if rev != "" {
		return rev
	}
	return version
}

// parseGopkgLock reads dep's Gopkg.lock (TOML): [[projects]] with name, revision and version.
func parseGopkgLock(data []byte) ([]gopin, error) {
	var lock struct {
		Projects []struct {
			Name     string `toml:"name"`
			Revision string `toml:"revision"`
			Version  string `toml:"version"`
		} `toml:"projects"`
	}
	if err := toml.Unmarshal(data, &lock); err != nil {
		return nil, err
	}
	out := make([]gopin, 0, len(lock.Projects))
	for _, p := range lock.Projects {
		out = append(out, gopin{path: p.Name, rev: revOrTag(p.Revision, p.Version)})
	}
	return out, nil
}

// parseGlideLock reads glide's glide.lock (YAML): imports and testImports with name and version
// (a commit hash).
func parseGlideLock(data []byte) ([]gopin, error) {
	type dep struct {
		Name    string `yaml:"name"`
		Version string `yaml:"version"`
	}
	var lock struct {
		Imports     []dep `yaml:"imports"`
		TestImports []dep `yaml:"testImports"`
	}
	if err := yaml.Unmarshal(data, &lock); err != nil {
		return nil, err
	}
	var out []gopin
	for _, d := range append(lock.Imports, lock.TestImports...) {
		out = append(out, gopin{path: d.Name, rev: d.Version})
	}
	return out, nil
}

// parseGodepsJSON reads godep's Godeps/Godeps.json: Deps with ImportPath (a package) and Rev.
func parseGodepsJSON(data []byte) ([]gopin, error) {
	var cfg struct {
		Deps []struct {
			ImportPath string
			Rev        string
		}
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, err
	}
	out := make([]gopin, 0, len(cfg.Deps))
	for _, d := range cfg.Deps {
		out = append(out, gopin{path: d.ImportPath, rev: d.Rev})
	}
	return out, nil
}

// parseVendorJSON reads govendor's vendor/vendor.json: package with path (a package) and
// revision.
func parseVendorJSON(data []byte) ([]gopin, error) {
	var cfg struct {
		Package []struct {
			Path     string `json:"path"`
			Revision string `json:"revision"`
		} `json:"package"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, err
	}
	out := make([]gopin, 0, len(cfg.Package))
	for _, p := range cfg.Package {
		out = append(out, gopin{path: p.Path, rev: p.Revision})
	}
	return out, nil
}

// parseVendorConf reads trash's and vndr's vendor.conf: one "path revision [repository]" a
// line, "#" starting a comment.
func parseVendorConf(data []byte) ([]gopin, error) {
	var out []gopin
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if f := strings.Fields(line); len(f) >= 2 {
			out = append(out, gopin{path: f[0], rev: f[1]})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
