package codectx

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/toulmin"
)

// headTree writes files into a temporary head tree (and an empty base) and returns the change's
// Trees function.
func headTree(t *testing.T, files map[string]string) func(context.Context) (string, string, func(), error) {
	t.Helper()
	dir := t.TempDir()
	base, head := filepath.Join(dir, "base"), filepath.Join(dir, "head")
	for p, text := range files {
		name := filepath.Join(head, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	return func(context.Context) (string, string, func(), error) { return base, head, func() {}, nil }
}

func TestReaderKeepsTheFilesBesideTheChangedOnes(t *testing.T) {
	c := handlerChange(t)
	c.Beside = nil
	outside := filepath.Join(t.TempDir(), "secret.go")
	if err := os.WriteFile(outside, []byte("package api\n\nfunc Secret() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trees := headTree(t, map[string]string{
		"api/handler.go":      testdata(t, "handler_head.go.txt"),
		"api/errors.go":       testdata(t, "errors.go.txt"),
		"api/store.go":        testdata(t, "store.go.txt"),
		"api/handler_test.go": "package api\n",
		"api/notes.txt":       "not code\n",
		"api/gen.pb.go":       "package api\n",
		"api/big.go":          "package api\n" + strings.Repeat("// x\n", MaxFileBytes/5+1),
		"web/app.js":          "function app() {}\n",
		"other/other.go":      "package other\n",
	})
	c.Trees = trees
	_, head, _, _ := trees(context.Background())
	if err := os.Symlink(outside, filepath.Join(head, "api", "link.go")); err != nil {
		t.Fatal(err)
	}
	_, notes, err := scan.GatherWithNotes(context.Background(), c, []scan.Analyzer{Reader{}})
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for p := range c.Beside {
		kept = append(kept, p)
	}
	sort.Strings(kept)
	if got := strings.Join(kept, ","); got != "api/errors.go,api/store.go" {
		t.Errorf("kept %s; want the package's other source files only (no test, generated, linked, large, other language or directory, nor the changed file itself)", got)
	}
	if string(c.Beside["api/errors.go"]) != testdata(t, "errors.go.txt") {
		t.Error("api/errors.go is not kept whole")
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "1 file(s) beside the changed ones were not read") {
		t.Errorf("notes %q, want the large file counted", notes)
	}
}

func TestReaderWithoutTreesKeepsNothing(t *testing.T) {
	c := handlerChange(t)
	c.Beside = nil
	if _, _, err := scan.GatherWithNotes(context.Background(), c, []scan.Analyzer{Reader{}}); err != nil {
		t.Fatal(err)
	}
	if c.Beside != nil {
		t.Errorf("a change without trees kept %d files", len(c.Beside))
	}
}

// The debate's quality check, given HeadIndex, accepts a claim citing a line of the enclosing
// function that the diff does not show, and refuses one citing past the head file's end.
func TestQualityCheckReadsTheHeadTree(t *testing.T) {
	c := handlerChange(t)
	arg := func(line int) *toulmin.Argument {
		return &toulmin.Argument{ID: "a", Phase: toulmin.PhaseOpening, Claim: "the handler saves an order it refused",
			Grounds:   []toulmin.Ground{{Path: "api/handler.go", Line: line, Text: "writeError without return"}},
			Warrant:   "writeError does not end the handler",
			Qualifier: toulmin.Qualifier{Confidence: 0.8}}
	}
	if f := c.Files[0]; f.Shows(30) {
		t.Fatal("the fixture's diff shows line 30; the test needs a line outside the hunk")
	}
	if q := toulmin.Score(arg(30), c); q.Verified() {
		t.Fatal("the diff alone should not verify a line outside its hunks")
	}
	if q := toulmin.Score(arg(30), NewHeadIndex(c)); !q.Verified() || len(q.BadCitations) != 0 {
		t.Errorf("a context line of the head is refused: %+v", q)
	}
	if q := toulmin.Score(arg(400), NewHeadIndex(c)); q.Verified() || strings.Join(q.BadCitations, ",") != "api/handler.go:400" {
		t.Errorf("a line past the head file's end is accepted: %+v", q)
	}
}

// A secret in a file beside the change, which the change does not show, is masked in the code
// the model reads; the lines keep their numbers.
func TestSecretsBesideTheChangeAreMasked(t *testing.T) {
	token := "ghp_" + "Zq8rT2vLk9XwPm4Nc7Yb1Hd6Jf3Gs5Ae0Ru8"
	key := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----"
	beside := "package api\n\n// client calls the API.\nfunc client() string {\n\ttok := \"" + token + "\"\n\tpem := `" + key + "`\n\treturn tok + pem\n}\n"
	base := "package api\n\nfunc Call() string {\n\treturn client()\n}\n"
	head := "package api\n\nfunc Call() string {\n\treturn client() + \"!\"\n}\n"
	c := narrowed(t, [3]string{"api/call.go", base, head})
	c.Beside = map[string][]byte{"api/client.go": []byte(beside)}
	code, err := Build(context.Background(), c, nil, nil, 4000, tokenizer(t))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(code.Text, "--- api/client.go:3-11 func client: called by Call\n") {
		t.Fatalf("the helper is not shown:\n%s", code.Text)
	}
	if strings.Contains(code.Text, token) || strings.Contains(code.Text, "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun") {
		t.Errorf("a secret beside the change reached the model:\n%s", code.Text)
	}
	for _, want := range []string{"    5| \ttok := \"ghp_", "   11| }\n", "    7| MIIEow"} {
		if want == "    7| MIIEow" {
			if strings.Contains(code.Text, want) {
				t.Errorf("a line of the private key is shown:\n%s", code.Text)
			}
			continue
		}
		if !strings.Contains(code.Text, want) {
			t.Errorf("the code lacks %q (lines keep their numbers):\n%s", want, code.Text)
		}
	}
}

// A resumed debate reads the files beside the change without gathering evidence again; a change
// whose files beside were read is not read twice.
func TestReadBesideOnResume(t *testing.T) {
	c := handlerChange(t)
	c.Beside = nil
	c.Trees = headTree(t, map[string]string{"api/handler.go": testdata(t, "handler_head.go.txt"), "api/errors.go": testdata(t, "errors.go.txt")})
	ReadBeside(context.Background(), c)
	if len(c.Beside) != 1 || c.Beside["api/errors.go"] == nil {
		t.Fatalf("read %d files beside, want api/errors.go", len(c.Beside))
	}
	c.Trees = func(context.Context) (string, string, func(), error) {
		t.Fatal("the trees were written again")
		return "", "", nil, nil
	}
	ReadBeside(context.Background(), c)
}

// A directory with more entries than are listed costs the first ones only, says so, and still
// gives the files beside the change that were listed.
func TestReaderListsAHugeDirectoryInPart(t *testing.T) {
	files := map[string]string{}
	for i := range maxBesideEntries + 50 {
		files[fmt.Sprintf("api/f%05d.txt", i)] = ""
	}
	for p, text := range map[string]string{"api/handler.go": testdata(t, "handler_head.go.txt"), "api/errors.go": testdata(t, "errors.go.txt")} {
		files[p] = text
	}
	c := handlerChange(t)
	c.Beside = nil
	c.Trees = headTree(t, files)
	_, notes, err := scan.GatherWithNotes(context.Background(), c, []scan.Analyzer{Reader{}})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("api has over %d entries: only %d of them were looked at", maxBesideEntries, maxBesideEntries)
	if !strings.Contains(strings.Join(notes, "\n"), want) {
		t.Errorf("notes %v, want %q", notes, want)
	}
}
