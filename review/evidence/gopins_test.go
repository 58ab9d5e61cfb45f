package evidence

import (
	"reflect"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change/changetest"
)

// greetVersions are example.com/greet v1.0.0, which has Hello (at commit greetRev), and
// v1.1.0, the latest, which renamed it.
func greetVersions(t *testing.T) (*fakeModule, *fakeModule) {
	old := greetModule(t)
	old.rev = greetRev
	latest := buildFakeModule(t, "example.com/greet", "v1.1.0", map[string]string{
		"go.mod":   "module example.com/greet\n\ngo 1.21\n",
		"greet.go": "package greet\n\n// Greet greets name.\nfunc Greet(name string) string { return \"hello \" + name }\n",
	})
	return old, latest
}

const greetRev = "0123456789abcdef0123456789abcdef01234567"

// gopathGreetTree writes a tree without go.mod whose package p calls greet.Hello, with the
// dependency manager's file name holding content (none when name is empty).
func gopathGreetTree(t *testing.T, name, content string) string {
	dir := t.TempDir()
	changetest.Write(t, dir+"/p/p.go", "package p // import \"example.org/old/p\"\n\nimport \"example.com/greet\"\n\n// Welcome welcomes name.\nfunc Welcome(name string) string { return greet.Hello(name) }\n")
	if name != "" {
		changetest.Write(t, dir+"/"+name, content)
	}
	return dir
}

// TestGopathPinsAreRequired: a GOPATH tree whose Gopkg.lock pins a commit of a dependency is
// type-checked against the version the proxy gives for that commit, not the latest one whose
// API it does not call; without the lock it is degraded.
func TestGopathPinsAreRequired(t *testing.T) {
	old, latest := greetVersions(t)
	proxy := newFakeProxy(t, false, old, latest)
	lock := "[[projects]]\n  name = \"example.com/greet\"\n  packages = [\".\"]\n  revision = \"" + greetRev + "\"\n"
	res := runTree(t, gopathGreetTree(t, "Gopkg.lock", lock), []string{"p/p.go"}, testModules(t, proxy.URL))
	if got := coverage(res); got != "1/1" || len(res.Degraded) > 0 {
		t.Errorf("with the pin, %s packages fully type-checked, want 1/1 (degraded %+v, notes %q)", got, res.Degraded, res.Notes)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "1 of its dependencies at the versions Gopkg.lock pins") {
		t.Errorf("no note on the pins: %q", res.Notes)
	}
	unpinned := runTree(t, gopathGreetTree(t, "", ""), []string{"p/p.go"}, testModules(t, proxy.URL))
	if got := coverage(unpinned); got != "0/1" {
		t.Errorf("without a pin, %s packages fully type-checked, want 0/1 (the latest greet has no Hello)", got)
	}
}

// TestPinFromProxyList: a proxy that answers no commit query still lists the pseudo-version of
// the pinned commit, which is taken; with downloads off the proxy is never asked.
func TestPinFromProxyList(t *testing.T) {
	_, latest := greetVersions(t)
	pseudo := buildFakeModule(t, "example.com/greet", "v1.0.1-0.20200102030405-"+greetRev[:12], greetModule(t).files)
	proxy := newFakeProxy(t, false, pseudo, latest)
	godeps := `{"ImportPath": "example.org/old", "Deps": [{"ImportPath": "example.com/greet", "Rev": "` + greetRev + `"}]}`
	dir := gopathGreetTree(t, "Godeps/Godeps.json", godeps)
	res := runTree(t, dir, []string{"p/p.go"}, testModules(t, proxy.URL))
	if got := coverage(res); got != "1/1" || len(res.Degraded) > 0 {
		t.Errorf("with the listed pseudo-version, %s packages fully type-checked, want 1/1 (degraded %+v, notes %q)", got, res.Degraded, res.Notes)
	}
	before := proxy.requests.Load()
	off := runTree(t, dir, []string{"p/p.go"}, testModules(t, "off"))
	if n := proxy.requests.Load() - before; n != 0 {
		t.Errorf("with downloads off, the proxy got %d requests", n)
	}
	if !strings.Contains(strings.Join(off.Notes, "\n"), "downloads are off") {
		t.Errorf("with downloads off, no note on the pins not resolved: %q", off.Notes)
	}
}

// TestUnknownPinResolvesAtLatest: a pin the proxy does not know is counted in the note, and the
// dependency resolves at its latest version.
func TestUnknownPinResolvesAtLatest(t *testing.T) {
	old, _ := greetVersions(t)
	proxy := newFakeProxy(t, false, old)
	conf := "example.com/greet ffffffffffffffffffffffffffffffffffffffff\n"
	res := runTree(t, gopathGreetTree(t, "vendor.conf", conf), []string{"p/p.go"}, testModules(t, proxy.URL))
	if got := coverage(res); got != "1/1" {
		t.Errorf("%s packages fully type-checked, want 1/1 (notes %q)", got, res.Notes)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "1 pinned ones the module proxy did not resolve") {
		t.Errorf("no note on the unresolved pin: %q", res.Notes)
	}
}

// TestPinManifestsParse: each dependency manager's file gives its pins (a package of a
// repository included, for godep and govendor), without the tree's own or invalid paths.
func TestPinManifestsParse(t *testing.T) {
	rev := func(c string) string { return strings.Repeat(c, 40) }
	cases := []struct {
		name, content string
		want          []gopin
	}{
		{"Gopkg.lock", "[[projects]]\n  name = \"github.com/a/b\"\n  revision = \"" + rev("a") + "\"\n  version = \"v1.2.0\"\n\n[[projects]]\n  name = \"github.com/c/d\"\n  version = \"v0.3.0\"\n\n[solve-meta]\n  analyzer-name = \"dep\"\n",
			[]gopin{{"github.com/a/b", rev("a")}, {"github.com/c/d", "v0.3.0"}}},
		{"glide.lock", "hash: x\nimports:\n- name: github.com/a/b\n  version: " + rev("b") + "\n  subpackages:\n  - sub\ntestImports:\n- name: gopkg.in/check.v1\n  version: " + rev("c") + "\n",
			[]gopin{{"github.com/a/b", rev("b")}, {"gopkg.in/check.v1", rev("c")}}},
		{"Godeps/Godeps.json", `{"ImportPath": "x", "Deps": [{"ImportPath": "github.com/a/b/sub", "Comment": "v1.0.0", "Rev": "` + rev("d") + `"}, {"ImportPath": "nodots/pkg", "Rev": "` + rev("e") + `"}]}`,
			[]gopin{{"github.com/a/b/sub", rev("d")}}},
		{"vendor/vendor.json", `{"package": [{"path": "golang.org/x/net/context", "revision": "` + rev("f") + `"}, {"path": "github.com/a/b", "revision": ""}]}`,
			[]gopin{{"golang.org/x/net/context", rev("f")}}},
		{"vendor.conf", "# comment\ngithub.com/a/b " + rev("1") + " https://github.com/fork/b\ngolang.org/x/sys v0.1.0 # tagged\n\nlonely\n",
			[]gopin{{"github.com/a/b", rev("1")}, {"golang.org/x/sys", "v0.1.0"}}},
	}
	for _, c := range cases {
		dir := t.TempDir()
		changetest.Write(t, dir+"/"+c.name, c.content)
		got, file, err := readPins(dir)
		if err != nil || file != c.name || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: pins %v from %q (%v), want %v", c.name, got, file, err, c.want)
		}
	}
	dir := t.TempDir()
	changetest.Write(t, dir+"/Gopkg.lock", "[[projects]\n")
	if _, _, err := readPins(dir); err == nil {
		t.Error("a Gopkg.lock that is not TOML gave no error")
	}
	if pins, file, err := readPins(t.TempDir()); pins != nil || file != "" || err != nil {
		t.Errorf("a tree without a dependency manager's file: %v %q %v", pins, file, err)
	}
}

// TestRenamedLatestIsExcluded: a dependency whose latest version's go.mod declares another path
// would stop the whole resolution; that version is excluded and the newest other one is taken.
// When no version is renamed, nothing is excluded.
func TestRenamedLatestIsExcluded(t *testing.T) {
	old, _ := greetVersions(t)
	renamed := buildFakeModule(t, "example.com/greet", "v1.2.0", map[string]string{
		"go.mod":   "module example.com/greeting\n\ngo 1.21\n",
		"greet.go": old.files["greet.go"],
	})
	proxy := newFakeProxy(t, false, old, renamed)
	res := runTree(t, gopathGreetTree(t, "", ""), []string{"p/p.go"}, testModules(t, proxy.URL))
	if got := coverage(res); got != "1/1" || len(res.Degraded) > 0 {
		t.Errorf("%s packages fully type-checked, want 1/1 (degraded %+v, notes %q)", got, res.Degraded, res.Notes)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "example.com/greet v1.2.0 declares another module path") {
		t.Errorf("no note on the excluded version: %q", res.Notes)
	}
	plain := runTree(t, gopathGreetTree(t, "", ""), []string{"p/p.go"}, testModules(t, newFakeProxy(t, false, old).URL))
	if got := coverage(plain); got != "1/1" || strings.Contains(strings.Join(plain.Notes, "\n"), "excluded") {
		t.Errorf("without a renamed version: %s fully type-checked, notes %q", got, plain.Notes)
	}
}

// TestOlderMajorWhenLatestLacksTheAPI: a GOPATH tree calling what its unpinned dependency's
// latest major (v1) no longer has is analysed with the newest v0; a tree calling what v1 has
// keeps v1.
func TestOlderMajorWhenLatestLacksTheAPI(t *testing.T) {
	files := greetModule(t).files
	v0 := buildFakeModule(t, "example.com/greet", "v0.9.0", files)
	_, v1 := greetVersions(t)
	proxy := newFakeProxy(t, false, v0, v1)
	res := runTree(t, gopathGreetTree(t, "", ""), []string{"p/p.go"}, testModules(t, proxy.URL))
	if got := coverage(res); got != "1/1" || len(res.Degraded) > 0 {
		t.Errorf("%s packages fully type-checked, want 1/1 (degraded %+v, notes %q)", got, res.Degraded, res.Notes)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "example.com/greet v1.1.0 lacks what the tree calls: analysed with example.com/greet v0.9.0") {
		t.Errorf("no note on the older major: %q", res.Notes)
	}
	dir := t.TempDir()
	changetest.Write(t, dir+"/p/p.go", "package p // import \"example.org/old/p\"\n\nimport \"example.com/greet\"\n\n// Welcome welcomes name.\nfunc Welcome(name string) string { return greet.Greet(name) }\n")
	current := runTree(t, dir, []string{"p/p.go"}, testModules(t, proxy.URL))
	if got := coverage(current); got != "1/1" || strings.Contains(strings.Join(current.Notes, "\n"), "older major") {
		t.Errorf("a tree calling v1's API: %s fully type-checked, notes %q", got, current.Notes)
	}
}
