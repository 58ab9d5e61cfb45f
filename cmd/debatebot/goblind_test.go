package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/gittest"
	"github.com/debatebot/debatebot/voting"
)

// untrustedTree is a fixture of review/evidence/testdata/untrusted: the base of a shop whose
// Describe guards against a nil user, and heads that remove the guard and try, each its own way,
// to keep the type-checked analysis from seeing it.
func untrustedTree(name string) string {
	return filepath.Join("..", "..", "review", "evidence", "testdata", "untrusted", name)
}

const untrustedAnalysed = "type-checked Go analysis (go vet passes, staticcheck, bodyclose, sqlclosecheck, rowserrcheck, noctx, errcheck, nilaway, gosec, debatebot's own analyzers and comparison of protections) of 1 package(s) in base and head: example.com/shop/api; 1 new finding(s)"

// checkUntrustedDebate debates the change from the base to head and checks that the package was
// analysed, that the nil dereference at line is required, and that the transcript says each of
// notes.
func checkUntrustedDebate(t *testing.T, head string, line string, notes ...string) string {
	t.Helper()
	dir := gittest.FromTrees(t, untrustedTree("base"), untrustedTree(head))
	rec := debateRecord(t, "debate", "--git", "main..feature", "--dir", dir)
	if rec.Decision != voting.RequestChanges {
		t.Errorf("decision %q, want request_changes", rec.Decision)
	}
	found := false
	for _, r := range rec.RequiredChanges {
		found = found || strings.HasPrefix(r, "api/user.go:"+line+": handle the nil case")
	}
	if !found {
		t.Errorf("the nil dereference at api/user.go:%s is not required: %q", line, rec.RequiredChanges)
	}
	code, md, errOut := runCmd(t, "", nil, "debate", "--git", "main..feature", "--dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range append([]string{untrustedAnalysed, "| `api/user.go:" + line + "` | nilness |"}, notes...) {
		if !strings.Contains(md, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("transcript:\n%s", md)
	}
	return md
}

// A go.mod asking for a go newer than the toolchain (with a toolchain line, which would download
// one, and a godebug setting the toolchain does not know) is analysed as the toolchain's go,
// and the transcript says so.
func TestDebateGoLineNewerThanToolchain(t *testing.T) {
	checkUntrustedDebate(t, "go199", "19",
		"go.mod asks for go 1.99, newer than this toolchain (go1.",
		"without downloading a toolchain",
		"go.mod: the toolchain line (go1.99.1) was ignored",
		"go.mod: 1 godebug setting(s) ignored")
}

// import "C" no longer takes a file out of the analysis: its Go code is type-checked without
// compiling C (no C compiler runs: the one named by CC would leave a mark), and the nil
// dereference in the file is found.
func TestDebateCgoFileAnalysedWithoutC(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "cc-ran")
	cc := filepath.Join(t.TempDir(), "cc")
	if err := os.WriteFile(cc, []byte("#!/bin/sh\ntouch "+mark+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CC", cc)
	t.Setenv("CGO_ENABLED", "1") // the analysis switches it off whatever the process has
	checkUntrustedDebate(t, "cgo", "25",
		`example.com/shop/api: 1 file(s) importing "C" type-checked without compiling C (names from C are untyped; 1 function(s) using them analysed by their declarations only)`)
	if _, err := os.Stat(mark); err == nil {
		t.Error("the C compiler ran on the pull request's code")
	}
}

// A replacement whose path leaves the tree is refused, the module is analysed without it, and
// the transcript says so.
func TestDebateReplaceOutsideTreeRefused(t *testing.T) {
	md := checkUntrustedDebate(t, "replace", "19",
		"go.mod: replacement example.com/evil =", // the transcript escapes the arrow
		"../../../../../../../../etc refused: its path leaves the tree, so the module resolves like any missing dependency")
	if strings.Contains(md, "/etc/go.mod") {
		t.Errorf("the go command read outside the tree:\n%s", md)
	}
}

// A change that takes a package out of the analysis (a build constraint that is never true) is
// a finding at the constraint, and the debate does not approve it.
func TestDebateBlindedPackageIsAFinding(t *testing.T) {
	dir := gittest.FromTrees(t, untrustedTree("base"), untrustedTree("blind"))
	rec := debateRecord(t, "debate", "--git", "main..feature", "--dir", dir)
	if rec.Decision == voting.Approve || rec.Decision == voting.ApproveWithChanges {
		t.Errorf("decision %q for a change that hides its package from the analysis", rec.Decision)
	}
	found := false
	for _, r := range rec.RequiredChanges {
		found = found || strings.HasPrefix(r, "api/user.go:1: undo what stops the package from loading")
	}
	if !found {
		t.Errorf("no required change at the build constraint: %q", rec.RequiredChanges)
	}
	code, md, errOut := runCmd(t, "", nil, "debate", "--git", "main..feature", "--dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(md, "| `api/user.go:1` | analysis-blinded | security | the change stops the type-checked analysis of example.com/shop/api (api/), which the base analysed: ") {
		t.Errorf("the transcript lacks the finding:\n%s", md)
	}
}
