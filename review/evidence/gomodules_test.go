package evidence

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review/change/changetest"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

// fakeModule is a module version the fake proxy serves, written by the test.
type fakeModule struct {
	path, version string
	// rev, when set, is a commit hash whose .info query answers version.
	rev      string
	files    map[string]string // relative name → content; go.mod included
	zip, mod []byte
}

// greetModule is example.com/greet v1.0.0: one package with one function returning a string.
func greetModule(t *testing.T) *fakeModule {
	return buildFakeModule(t, "example.com/greet", "v1.0.0", map[string]string{
		"go.mod":   "module example.com/greet\n\ngo 1.21\n",
		"greet.go": "package greet\n\n// Hello greets name.\nfunc Hello(name string) string { return \"hello \" + name }\n",
	})
}

func buildFakeModule(t *testing.T, path, version string, files map[string]string) *fakeModule {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		changetest.Write(t, filepath.Join(dir, name), content)
	}
	var buf bytes.Buffer
	if err := modzip.CreateFromDir(&buf, module.Version{Path: path, Version: version}, dir); err != nil {
		t.Fatal(err)
	}
	return &fakeModule{path: path, version: version, files: files, zip: buf.Bytes(), mod: []byte(files["go.mod"])}
}

// sums are the module's go.sum lines, as the go command computes them.
func (m *fakeModule) sums(t *testing.T) string {
	t.Helper()
	zipFile := filepath.Join(t.TempDir(), "m.zip")
	if err := os.WriteFile(zipFile, m.zip, 0o600); err != nil {
		t.Fatal(err)
	}
	zh, err := dirhash.HashZip(zipFile, dirhash.Hash1)
	if err != nil {
		t.Fatal(err)
	}
	mh, err := dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(m.mod)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s %s %s\n%s %s/go.mod %s\n", m.path, m.version, zh, m.path, m.version, mh)
}

// fakeProxy serves mods by the GOPROXY protocol on loopback; with hang, it answers nothing
// until the client gives up (or the test ends). It counts the requests.
type fakeProxy struct {
	*httptest.Server
	requests atomic.Int64
}

func newFakeProxy(t *testing.T, hang bool, mods ...*fakeModule) *fakeProxy {
	t.Helper()
	p := &fakeProxy{}
	done := make(chan struct{})
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.requests.Add(1)
		if hang {
			select {
			case <-r.Context().Done():
			case <-done:
			case <-time.After(time.Minute):
			}
			return
		}
		listed := false
		for _, m := range mods {
			prefix := "/" + m.path + "/@v/"
			if !strings.HasPrefix(r.URL.Path, prefix) {
				continue
			}
			switch rest := strings.TrimPrefix(r.URL.Path, prefix); rest {
			case "list":
				fmt.Fprintln(w, m.version)
				listed = true
				continue
			case m.rev + ".info", m.version + ".info":
				_ = json.NewEncoder(w).Encode(map[string]string{"Version": m.version, "Time": "2024-01-02T03:04:05Z"})
				return
			case m.version + ".mod":
				_, _ = w.Write(m.mod)
				return
			case m.version + ".zip":
				_, _ = w.Write(m.zip)
				return
			}
		}
		if !listed {
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(func() { close(done); p.Close() })
	return p
}

// testModules are settings that reach only proxy (or nothing with "off"), with a cache of the
// test's own.
func testModules(t *testing.T, proxy string) *ModuleSettings {
	return &ModuleSettings{Proxy: proxy, SumDB: "off", Cache: filepath.Join(t.TempDir(), "gomod"), CacheBytes: 64 << 20, Timeout: time.Minute}
}

// greetTree writes a module whose package p imports example.com/greet, with sum as its go.sum.
func greetTree(t *testing.T, sum string) string {
	dir := t.TempDir()
	changetest.Write(t, dir+"/go.mod", "module example.com/app\n\ngo 1.21\n\nrequire example.com/greet v1.0.0\n")
	if sum != "" {
		changetest.Write(t, dir+"/go.sum", sum)
	}
	changetest.Write(t, dir+"/p/p.go", "package p\n\nimport \"example.com/greet\"\n\n// Welcome welcomes name.\nfunc Welcome(name string) string { return greet.Hello(name) }\n")
	return dir
}

func runTree(t *testing.T, dir string, files []string, m *ModuleSettings) *Result {
	t.Helper()
	res, err := Run(context.Background(), Options{BaseDir: dir, HeadDir: dir, Files: files, Modules: m})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func coverage(res *Result) string {
	full, changed := res.Head.TypeCoverage()
	return fmt.Sprintf("%d/%d", full, changed)
}

// TestProxiedModuleIsTypeChecked: a package importing a module the cache lacks is fully
// type-checked when the module is downloaded through the proxy, and degraded when downloads are
// off.
func TestProxiedModuleIsTypeChecked(t *testing.T) {
	greet := greetModule(t)
	proxy := newFakeProxy(t, false, greet)
	dir := greetTree(t, greet.sums(t))

	off := runTree(t, dir, []string{"p/p.go"}, testModules(t, "off"))
	if got := coverage(off); got != "0/1" {
		t.Errorf("with downloads off, %s packages fully type-checked, want 0/1 (degraded %+v)", got, off.Degraded)
	}
	if proxy.requests.Load() != 0 {
		t.Errorf("with downloads off, the proxy got %d requests", proxy.requests.Load())
	}

	on := runTree(t, dir, []string{"p/p.go"}, testModules(t, proxy.URL))
	if got := coverage(on); got != "1/1" || len(on.Degraded) > 0 {
		t.Errorf("through the proxy, %s packages fully type-checked, want 1/1 (degraded %+v, notes %q)", got, on.Degraded, on.Notes)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.sum")); err != nil {
		t.Fatal(err)
	}
}

// TestHangingProxyTimesOut: a proxy that never answers holds the analysis no longer than the
// time limit; the analysis finishes with the package degraded and a note saying why.
func TestHangingProxyTimesOut(t *testing.T) {
	greet := greetModule(t)
	proxy := newFakeProxy(t, true)
	dir := greetTree(t, greet.sums(t))
	m := testModules(t, proxy.URL)
	m.Timeout = 2 * time.Second
	start := time.Now()
	res := runTree(t, dir, []string{"p/p.go"}, m)
	if took := time.Since(start); took > 40*time.Second {
		t.Errorf("the analysis took %s with a 2s limit on downloads", took)
	}
	if got := coverage(res); got != "0/1" {
		t.Errorf("%s packages fully type-checked, want 0/1", got)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "downloading the dependencies took longer than 2s") {
		t.Errorf("no note on the time limit: %q", res.Notes)
	}
}

// TestWrongGoSumDegrades: a module whose download does not match the tree's go.sum is refused,
// and the package needing it is degraded with the reason.
func TestWrongGoSumDegrades(t *testing.T) {
	greet := greetModule(t)
	proxy := newFakeProxy(t, false, greet)
	other := buildFakeModule(t, "example.com/greet", "v1.0.0", map[string]string{
		"go.mod":   greet.files["go.mod"],
		"greet.go": "package greet\n\nfunc Hello(name string) string { return name }\n",
	})
	// The go.mod line is right (the module graph loads); the zip's is another content's.
	sum := strings.SplitAfter(other.sums(t), "\n")[0] + strings.SplitAfter(greet.sums(t), "\n")[1]
	res := runTree(t, greetTree(t, sum), []string{"p/p.go"}, testModules(t, proxy.URL))
	if got := coverage(res); got != "0/1" {
		t.Errorf("%s packages fully type-checked with a wrong go.sum, want 0/1", got)
	}
	var reason string
	for _, d := range res.Degraded {
		reason += d.Reason
	}
	if !strings.Contains(reason, "checksum mismatch") || !strings.Contains(reason, "does not match the checksum") {
		t.Errorf("the degraded reason does not say the checksum did not match: %+v", res.Degraded)
	}
}

// TestVendorIsUsedWithoutProxy: a module with a consistent vendor folder is type-checked from
// it, and the proxy is never asked.
func TestVendorIsUsedWithoutProxy(t *testing.T) {
	greet := greetModule(t)
	proxy := newFakeProxy(t, false, greet)
	dir := greetTree(t, greet.sums(t))
	changetest.Write(t, dir+"/vendor/modules.txt", "# example.com/greet v1.0.0\n## explicit; go 1.21\nexample.com/greet\n")
	changetest.Write(t, dir+"/vendor/example.com/greet/greet.go", greet.files["greet.go"])
	res := runTree(t, dir, []string{"p/p.go"}, testModules(t, proxy.URL))
	if got := coverage(res); got != "1/1" || len(res.Degraded) > 0 {
		t.Errorf("%s packages fully type-checked from vendor/, want 1/1 (degraded %+v)", got, res.Degraded)
	}
	if n := proxy.requests.Load(); n != 0 {
		t.Errorf("the proxy got %d requests with a vendor folder", n)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "vendor folder") {
		t.Errorf("no note on the vendor folder: %q", res.Notes)
	}
	// Inconsistent (another version listed): the go command would refuse it; downloads are used.
	changetest.Write(t, dir+"/vendor/modules.txt", "# example.com/greet v0.9.0\n## explicit; go 1.21\nexample.com/greet\n")
	res = runTree(t, dir, []string{"p/p.go"}, testModules(t, proxy.URL))
	if got := coverage(res); got != "1/1" || proxy.requests.Load() == 0 {
		t.Errorf("with an inconsistent vendor folder: %s fully type-checked, %d requests", got, proxy.requests.Load())
	}
}

// TestGopathTreeIsTypeChecked: a tree without go.mod is analysed under a module whose path its
// imports of its own folders imply, with its dependencies from the proxy; the analysis copy's
// go.mod never lands in the tree.
func TestGopathTreeIsTypeChecked(t *testing.T) {
	greet := greetModule(t)
	proxy := newFakeProxy(t, false, greet)
	dir := t.TempDir()
	changetest.Write(t, dir+"/util/util.go", "package util\n\n// Twice doubles n.\nfunc Twice(n int) int { return 2 * n }\n")
	changetest.Write(t, dir+"/cmd/tool/main.go", "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/greet\"\n\t\"github.com/someone/oldtool/util\"\n)\n\nfunc main() { fmt.Println(greet.Hello(\"x\"), util.Twice(2)) }\n")
	res := runTree(t, dir, []string{"cmd/tool/main.go", "util/util.go"}, testModules(t, proxy.URL))
	if got := coverage(res); got != "2/2" || len(res.Degraded) > 0 {
		t.Errorf("%s packages of the GOPATH tree fully type-checked, want 2/2 (degraded %+v, notes %q)", got, res.Degraded, res.Notes)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "analysed as module github.com/someone/oldtool") {
		t.Errorf("no note on the synthesised module: %q", res.Notes)
	}
	if _, err := os.Stat(dir + "/go.mod"); err == nil {
		t.Error("the synthesised go.mod was written into the tree")
	}
}

func TestInferModulePathFromImportComment(t *testing.T) {
	dir := t.TempDir()
	changetest.Write(t, dir+"/lib/lib.go", "package lib // import \"example.org/legacy/lib\"\n")
	if got, _ := inferModulePath(dir); got != "example.org/legacy" {
		t.Errorf("inferred %q, want example.org/legacy", got)
	}
	// A huge file of a hostile tree is read only as far as its imports can be: it costs itself,
	// and the import comment at its top still counts.
	huge := t.TempDir()
	changetest.Write(t, huge+"/big/big.go", "package big // import \"example.org/huge/big\"\n\nvar x = `"+strings.Repeat("\"\\ ( [ {", 4<<20)+"`\n")
	if got, _ := inferModulePath(huge); got != "example.org/huge" {
		t.Errorf("inferred %q from a huge file, want example.org/huge", got)
	}
	empty := t.TempDir()
	changetest.Write(t, empty+"/main.go", "package main\n\nfunc main() {}\n")
	if got, _ := inferModulePath(empty); got != fallbackModulePath {
		t.Errorf("inferred %q for a tree naming no path, want %s", got, fallbackModulePath)
	}
}

// TestEvictionKeepsCacheUnderCap fills a cache laid out as the go command lays it (extracted
// folders read-only) over its cap: eviction removes the least recently used versions, read-only
// or not, until it fits, and keeps the most recent.
func TestEvictionKeepsCacheUnderCap(t *testing.T) {
	cache := t.TempDir()
	t.Cleanup(func() { _ = removeReadOnly(cache) })
	old := time.Now().Add(-time.Hour)
	var versions []string
	for i := range 5 {
		v := fmt.Sprintf("v1.0.%d", i)
		versions = append(versions, "example.com/m@"+v)
		ext := filepath.Join(cache, "example.com", "m@"+v)
		changetest.Write(t, filepath.Join(ext, "big.go"), strings.Repeat("x", 100<<10))
		dl := filepath.Join(cache, "cache", "download", "example.com", "m", "@v")
		changetest.Write(t, filepath.Join(dl, v+".zip"), strings.Repeat("z", 50<<10))
		changetest.Write(t, filepath.Join(dl, v+".mod"), "module example.com/m\n")
		for _, p := range []string{filepath.Join(ext, "big.go"), filepath.Join(dl, v+".zip"), filepath.Join(dl, v+".mod")} {
			if err := os.Chmod(p, 0o444); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chmod(ext, 0o555); err != nil {
			t.Fatal(err)
		}
		stamp := old.Add(time.Duration(i) * time.Minute)
		for _, p := range []string{ext, filepath.Join(dl, v+".zip"), filepath.Join(dl, v+".mod")} {
			if err := os.Chtimes(p, stamp, stamp); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The oldest is used now: it is kept, the next oldest go.
	markUsed(cache, versions[:1])
	m := ModuleSettings{Proxy: "http://127.0.0.1:1", Cache: cache, CacheBytes: 470 << 10}
	if err := m.evictIfIdle(); err != nil {
		t.Fatal(err)
	}
	entries, err := cacheEntries(cache)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, e := range entries {
		total += e.size
	}
	if total > m.CacheBytes {
		t.Errorf("the cache holds %d bytes after eviction, over its cap of %d", total, m.CacheBytes)
	}
	for _, keep := range []string{"m@v1.0.0", "m@v1.0.4", "m@v1.0.3"} {
		if _, err := os.Stat(filepath.Join(cache, "example.com", keep)); err != nil {
			t.Errorf("%s was evicted: %v", keep, err)
		}
	}
	for _, gone := range []string{"m@v1.0.1", "m@v1.0.2"} {
		if _, err := os.Stat(filepath.Join(cache, "example.com", gone)); err == nil {
			t.Errorf("%s, among the least recently used, was kept", gone)
		}
	}
	// While an analysis holds the cache, nothing is evicted.
	release, err := (&ModuleSettings{Proxy: "http://127.0.0.1:1", Cache: cache}).useCache(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m.CacheBytes = 1
	if err := m.evictIfIdle(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cache, "example.com", "m@v1.0.4")); err != nil {
		t.Errorf("a module was evicted while an analysis held the cache: %v", err)
	}
	release()
}

func TestProxyListDropsDirect(t *testing.T) {
	for in, want := range map[string]string{
		"":                                     DefaultGoProxy,
		"off":                                  "off",
		"direct":                               "off",
		"https://a.example,direct":             "https://a.example",
		"https://a.example|https://b.example":  "https://a.example|https://b.example",
		" https://a.example , direct ,off":     "https://a.example",
		"https://a.example,https://b.example,": "https://a.example,https://b.example",
	} {
		if got := proxyList(in); got != want {
			t.Errorf("proxyList(%q) = %q, want %q", in, got, want)
		}
	}
}
