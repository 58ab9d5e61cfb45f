package review_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/review/gittest"
	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/review/reviewtest"
	"github.com/debatebot/debatebot/toulmin"
)

// writeTree writes files (slash-separated paths to contents) below dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		name := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// pullRequest is a repository with base on main and head on feature, and the change between them
// as a pull request's diff shows it (three lines of context, the trees for whole-tree analysis).
func pullRequest(t *testing.T, base, head map[string]string) (repo string, c *change.Change) {
	t.Helper()
	b, h := t.TempDir(), t.TempDir()
	writeTree(t, b, base)
	writeTree(t, h, head)
	repo = gittest.FromTrees(t, b, h)
	c, err := review.FromGit(context.Background(), repo, "main..feature")
	if err != nil {
		t.Fatalf("FromGit: %v", err)
	}
	return repo, c
}

var suggestionBlock = regexp.MustCompile("(?s)\n(`{3,})suggestion\n(.*?)(`{3,})\n")

// commitSuggestion does what GitHub's "Commit suggestion" does with the suggestion of comment
// body, posted on lines from..to of path: the lines replaced by the block's text, as a patch of
// the head, which must pass `git apply --check` in repo (on the head) and is then applied. It
// returns the file as the commit leaves it.
func commitSuggestion(t *testing.T, repo, path, body string, from, to int) string {
	t.Helper()
	m := suggestionBlock.FindStringSubmatch(body)
	if m == nil || m[1] != m[3] {
		t.Fatalf("no suggestion block in the comment:\n%s", body)
	}
	head, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(head), "\n")
	if to > len(lines) || from < 1 {
		t.Fatalf("lines %d-%d outside %s's %d lines", from, to, path, len(lines))
	}
	fixed := strings.Join(lines[:from-1], "") + m[2] + strings.Join(lines[to:], "")
	if fixed == string(head) {
		t.Fatalf("the suggestion on %s:%d-%d changes nothing", path, from, to)
	}
	// The patch GitHub commits: the head's file against the fixed one.
	work := t.TempDir()
	writeTree(t, work, map[string]string{"old/" + path: string(head), "new/" + path: fixed})
	diff := exec.Command("git", "diff", "--no-index", "--no-prefix", "old/"+path, "new/"+path)
	diff.Dir = work
	patch, err := diff.Output()
	if len(patch) == 0 {
		t.Fatalf("git diff --no-index: %v", err)
	}
	name := filepath.Join(work, "suggestion.patch")
	if err := os.WriteFile(name, patch, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"apply", "-p1", "--check", name}, {"apply", "-p1", name}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s\npatch:\n%s", strings.Join(args, " "), err, out, patch)
		}
	}
	got, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", repo, "checkout", "--", path).CombinedOutput(); err != nil {
		t.Fatalf("git checkout: %v\n%s", err, out)
	}
	return string(got)
}

// suggestionOf is the review comment of e as the publisher posts it and the lines it spans.
func suggestionOf(t *testing.T, e toulmin.Evidence) (body string, from, to int) {
	t.Helper()
	_, from, to, ok := render.Suggestion(e)
	if !ok {
		t.Fatalf("%s at %s carries no suggestion (fix %+v)", e.Rule, e.Location(), e.Fix)
	}
	if e.Line < from || e.Line > to {
		t.Fatalf("%s at %s: the suggestion's lines %d-%d leave out the finding's line", e.Rule, e.Location(), from, to)
	}
	return render.InlineFinding{Key: "k:1", Evidence: e}.CommentBody(), from, to
}

const goBase = `package app

import (
	"database/sql"
	"net/http"
)

// Serve answers on addr.
func Serve(db *sql.DB, addr string) error {
	return http.ListenAndServe(addr, nil)
}
`

const goHead = `package app

import (
	"context"
	"crypto/tls"
	"database/sql"
	"net/http"
	"os"
	"os/signal"
)

// Serve answers on addr until interrupted.
func Serve(ctx context.Context, db *sql.DB, addr string) error {
	stop := make(chan os.Signal)
	signal.Notify(stop, os.Interrupt)
	rows, err := db.QueryContext(nil, "SELECT name FROM users")
	if err != nil {
		return err
	}
	defer rows.Close()
	srv := &http.Server{Addr: addr, TLSConfig: &tls.Config{InsecureSkipVerify: true}}
	go srv.ListenAndServe()
	<-stop
	return srv.Shutdown(ctx)
}

// Label names the n-th user.
func Label(n uint16) string {
	return "user-" + string(n)
}
`

// The edits that go vet's passes, staticcheck and the rule's own fix propose on a Go change are
// posted as suggestions that GitHub can commit: each applies to the head with git apply and
// makes the fix it says. gosec proposes no edit (its issues carry at most prose from an AI
// provider), so it has no case here.
func TestGoSuggestionsApplyToTheHead(t *testing.T) {
	mod := "module example.com/svc\n\ngo 1.22\n"
	repo, c := pullRequest(t, map[string]string{"go.mod": mod, "app/app.go": goBase}, map[string]string{"go.mod": mod, "app/app.go": goHead})
	ev := reviewtest.Gather(t, c)
	want := []struct{ rule, fixed string }{
		{"sigchanyzer", "stop := make(chan os.Signal, 1)\n"},
		{"SA1012", `db.QueryContext(context.TODO(), "SELECT name FROM users")`},
		{"stringintconv", `"user-" + string(rune(n))`},
		{rules.RuleTLSVerifyOff, "InsecureSkipVerify: false}}"},
	}
	for _, w := range want {
		var e *toulmin.Evidence
		for i := range ev {
			if ev[i].Rule == w.rule || strings.Contains(ev[i].Message, w.rule) && ev[i].Fix != nil {
				e = &ev[i]
				break
			}
		}
		if e == nil {
			t.Errorf("no %s finding in:\n%s", w.rule, reviewtest.Dump(ev))
			continue
		}
		body, from, to := suggestionOf(t, *e)
		got := commitSuggestion(t, repo, e.Path, body, from, to)
		if !strings.Contains(got, w.fixed) {
			t.Errorf("%s: the committed suggestion does not make the fix %q:\n%s", w.rule, w.fixed, got)
		}
	}
}

// ESLint's fix of a message (here typescript-eslint's array delete, whose one suggested edit is
// a splice) is posted as a suggestion that applies to the head.
func TestESLintSuggestionAppliesToTheHead(t *testing.T) {
	src := os.Getenv("DEBATEBOT_ESLINT_DIR")
	if src == "" {
		src = filepath.Join("..", "tools", "eslint")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: install Node.js and set up tools/eslint (npm ci) to run this")
	}
	if _, err := os.Stat(filepath.Join(src, "node_modules", "eslint")); err != nil {
		t.Skipf("ESLint is not set up in %s: run 'npm ci --prefix tools/eslint' or set DEBATEBOT_ESLINT_DIR to run this", src)
	}
	// ESLint from that directory, with this repository's config and report formatter.
	dir := t.TempDir()
	modules, err := filepath.Abs(filepath.Join(src, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"eslint.config.mjs", "formatter.cjs", "package.json"} {
		data, err := os.ReadFile(filepath.Join("..", "tools", "eslint", f))
		if err != nil {
			t.Fatal(err)
		}
		writeTree(t, dir, map[string]string{f: string(data)})
	}
	t.Setenv("DEBATEBOT_ESLINT_DIR", dir)
	base := "function drop(list) {\n  return list.slice(1);\n}\n\nmodule.exports = { drop };\n"
	head := "function drop(list) {\n  const out = [...list];\n  delete out[0];\n  return out;\n}\n\nmodule.exports = { drop };\n"
	repo, c := pullRequest(t, map[string]string{"web/list.js": base}, map[string]string{"web/list.js": head})
	ev, _, err := review.GatherEvidence(context.Background(), c, evidence.DefaultAnalyzers())
	if err != nil {
		t.Fatal(err)
	}
	e := evidenceAt(ev, "eslint:@typescript-eslint/no-array-delete", "web/list.js", 3)
	if e == nil {
		e = evidenceAt(ev, "eslint:other", "web/list.js", 3)
	}
	if e == nil {
		t.Fatalf("no array-delete finding at web/list.js:3 in:\n%s", reviewtest.Dump(ev))
	}
	body, from, to := suggestionOf(t, *e)
	if got := commitSuggestion(t, repo, e.Path, body, from, to); !strings.Contains(got, "\n  out.splice(0, 1);\n") {
		t.Errorf("the committed suggestion does not splice:\n%s", got)
	}
}

const pyBase = "import sqlite3\n\n\ndef find(db, name):\n    return db.execute(\"SELECT id FROM users WHERE name = ?\", (name,))\n"

const pyHead = "import sqlite3\n\n\ndef find(db, name):\n    query = f\"SELECT id FROM users WHERE name = '{name}'\"\n    return db.execute(query)\n"

// withModelFix answers as llmtest.Valid does, with every opening and final argument citing
// app/db.py:5 and proposing two required edits there: one quoting the head's lines 5-6 exactly,
// one misquoting them (which must come to nothing).
func withModelFix(n int, r *llmtest.Request) llmtest.Response {
	resp := llmtest.Valid(n, r)
	phase, _ := llmtest.Phase(r)
	if phase != "opening_arguments" && phase != "final_arguments" {
		return resp
	}
	var reply map[string]any
	if err := json.Unmarshal([]byte(resp.Content), &reply); err != nil {
		return llmtest.NotJSON()
	}
	good := map[string]any{"text": "bind the name as a parameter", "path": "app/db.py", "line": 6, "required": true, "start_line": 5,
		"original":    []any{"    query = f\"SELECT id FROM users WHERE name = '{name}'\"", "    return db.execute(query)"},
		"replacement": []any{"    return db.execute(\"SELECT id FROM users WHERE name = ?\", (name,))"}}
	misquoted := map[string]any{"text": "quote the name", "path": "app/db.py", "line": 5, "required": true, "start_line": 5,
		"original":    []any{"    query = f\"SELECT id FROM users WHERE name = {name}\""},
		"replacement": []any{"    query = f\"SELECT id FROM users WHERE name = '{name!r}'\""}}
	for _, a := range reply["arguments"].([]any) {
		arg := a.(map[string]any)
		arg["severity"] = "high"
		arg["grounds"] = []any{map[string]any{"path": "app/db.py", "line": 5, "text": "the query is formatted from name"}}
		arg["actions"] = []any{good, misquoted}
	}
	b, err := json.Marshal(reply)
	if err != nil {
		return llmtest.NotJSON()
	}
	resp.Content = string(b)
	return resp
}

// A model's replacement lines for a cited range of head lines become the suggestion of the
// review comment on those lines, and apply to the head; replacement lines that misquote the
// head are dropped when the reply is read.
func TestModelSuggestionAppliesToTheHead(t *testing.T) {
	repo, c := pullRequest(t, map[string]string{"app/db.py": pyBase}, map[string]string{"app/db.py": pyHead})
	srv := llmtest.New(t, withModelFix)
	panel, err := agents.LLMPanel(agents.DefaultPerspectives(), llm.Options{APIKey: "test-key", BaseURL: srv.BaseURL(), Model: "gpt-4o-mini", PerAgent: true, MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	var cheap []scan.Analyzer // the analyzers of the change's text: no tool needed
	for _, a := range evidence.DefaultAnalyzers() {
		if n := a.Name(); n == "go-ast" || n == "lines" || n == "change" {
			cheap = append(cheap, a)
		}
	}
	tr, err := (&review.Debate{Change: c, Protocol: toulmin.Standard(), Agents: panel, Analyzers: cheap, Clock: reviewtest.FixedClock()}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fixes, dropped := 0, 0
	for _, a := range tr.Arguments {
		for _, act := range a.Actions {
			switch {
			case act.Text == "bind the name as a parameter" && act.Fix != nil:
				fixes++
			case act.Text == "quote the name" && act.Fix != nil:
				t.Errorf("misquoted replacement lines kept: %+v", act.Fix)
			case act.Text == "quote the name":
				dropped++
			}
		}
	}
	if fixes == 0 || dropped == 0 {
		t.Fatalf("%d actions with the model's fix, %d with it dropped; want both", fixes, dropped)
	}
	onLines, _ := render.InlineFindings(tr)
	var f *render.InlineFinding
	for i := range onLines {
		if onLines[i].Path == "app/db.py" && onLines[i].Fix != nil {
			f = &onLines[i]
		}
	}
	if f == nil {
		t.Fatalf("no inline comment on app/db.py carries the model's fix: %+v", onLines)
	}
	_, from, to, ok := render.Suggestion(f.Evidence)
	if !ok || from != 5 || to != 6 {
		t.Fatalf("suggestion on lines %d-%d (ok %v), want 5-6", from, to, ok)
	}
	got := commitSuggestion(t, repo, "app/db.py", f.CommentBody(), from, to)
	if got != pyBase {
		t.Errorf("the committed suggestion should restore the parameterised query:\n%s", got)
	}
}
