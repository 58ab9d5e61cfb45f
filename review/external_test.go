package review_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/evidence/external"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/gittest"
	"github.com/debatebot/debatebot/review/reviewtest"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

const (
	externalBase       = "evidence/external/testdata/external/base"
	externalHead       = "evidence/external/testdata/external/head"
	externalBenignBase = "evidence/external/testdata/external-benign/base"
	externalBenignHead = "evidence/external/testdata/external-benign/head"
)

// needExternalTools skips the test unless every external tool is installed (.ci/run installs them)
// and points DEBATEBOT_ESLINT_DIR at the repository's tools/eslint when it is not set.
func needExternalTools(t *testing.T) {
	t.Helper()
	for _, p := range []struct{ name, install string }{
		{"bandit", "apt-get install bandit"}, {"shellcheck", "apt-get install shellcheck"},
		{"cppcheck", "apt-get install cppcheck"}, {"node", "apt-get install nodejs"},
	} {
		if _, err := exec.LookPath(p.name); err != nil {
			t.Skipf("%s is not installed: install it (%s) to run this", p.name, p.install)
		}
	}
	dir := os.Getenv("DEBATEBOT_ESLINT_DIR")
	if dir == "" {
		abs, err := filepath.Abs(filepath.Join("..", "tools", "eslint"))
		if err != nil {
			t.Fatal(err)
		}
		dir = abs
		t.Setenv("DEBATEBOT_ESLINT_DIR", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "eslint")); err != nil {
		t.Skipf("ESLint is not set up in %s: run 'npm ci --prefix tools/eslint' to run this", dir)
	}
}

func evidenceAt(ev []toulmin.Evidence, rule, path string, line int) *toulmin.Evidence {
	for i, e := range ev {
		if e.Rule == rule && e.Path == path && e.Line == line {
			return &ev[i]
		}
	}
	return nil
}

func noteWith(notes []string, prefix string) string {
	for _, n := range notes {
		if strings.HasPrefix(n, prefix) {
			return n
		}
	}
	return ""
}

// A git range is analysed by every external tool over its changed files in base and head: the
// defects the change adds are evidence, with the stakeholder of their topic; those the base had
// are left out though their lines moved.
func TestGitRangeGathersExternalFindings(t *testing.T) {
	needExternalTools(t)
	repo := gittest.FromTrees(t, externalBase, externalHead)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx := context.Background()
	c, err := review.FromGit(ctx, repo, "main..feature")
	if err != nil {
		t.Fatalf("FromGit: %v", err)
	}
	ev, notes, err := review.GatherEvidence(ctx, c, evidence.DefaultAnalyzers())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		rule, path  string
		line        int
		stakeholder string
		severity    voting.Severity
		in          string
	}{
		{"bandit:B506", "app/run.py", 17, rules.Security, voting.SeverityHigh, "(in load_config)"},
		{"bandit:B602", "app/run.py", 22, rules.Security, voting.SeverityHigh, "(in Archiver.archive)"},
		{"eslint:security/detect-child-process", "web/server.js", 9, rules.Security, voting.SeverityHigh, "(in thumbnail)"},
		{"eslint:no-dupe-keys", "web/limits.ts", 11, rules.Maintainability, voting.SeverityMedium, "(in merged)"},
		{"shellcheck:SC2115", "scripts/deploy.sh", 12, rules.Security, voting.SeverityHigh, "(in publish)"},
		{"cppcheck:bufferAccessOutOfBounds", "native/buf.c", 16, rules.Maintainability, voting.SeverityHigh, "(in copy_name)"},
	}
	for _, w := range want {
		e := evidenceAt(ev, w.rule, w.path, w.line)
		if e == nil {
			t.Errorf("no %s at %s:%d in:\n%s", w.rule, w.path, w.line, reviewtest.Dump(ev))
			continue
		}
		if e.Stakeholder != w.stakeholder || e.Severity != w.severity || !strings.HasSuffix(e.Message, w.in) || e.Snippet == "" {
			t.Errorf("%s = %+v; want %s, %s, message ending %q, a snippet", w.rule, *e, w.stakeholder, w.severity, w.in)
		}
	}
	// The defects the base already had, on lines the change moved.
	for _, old := range []struct {
		path string
		line int
	}{{"app/run.py", 9}, {"web/server.js", 5}, {"web/limits.ts", 15}, {"scripts/deploy.sh", 8}, {"native/buf.c", 9}} {
		for _, e := range ev {
			if evidence.IsWholeTree(e.Analyzer) && e.Path == old.path && e.Line == old.line {
				t.Errorf("pre-existing finding reported: %+v", e)
			}
		}
	}
	for _, prefix := range []string{
		"bandit (Python) on 2 file(s) in base and head: 2 new finding(s), 1 pre-existing finding(s) left out",
		"eslint (JavaScript/TypeScript) on 3 file(s) in base and head: 3 new finding(s), 3 pre-existing finding(s) left out",
		"shellcheck (shell) on 1 file(s) in base and head: 1 new finding(s), 1 pre-existing finding(s) left out",
		"cppcheck (C/C++) on 1 file(s) in base and head: 1 new finding(s), 1 pre-existing finding(s) left out",
	} {
		if noteWith(notes, prefix) == "" {
			t.Errorf("no note %q in %q", prefix, notes)
		}
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("left behind in TMPDIR: %s", e.Name())
	}
}

// The offline debate requests changes for the defects the tools found, and does not for a benign
// change in the same languages, whose remarks are low.
func TestExternalFindingsDecide(t *testing.T) {
	needExternalTools(t)
	ctx := context.Background()
	decide := func(base, head string) *toulmin.Transcript {
		t.Helper()
		c, err := review.FromGit(ctx, gittest.FromTrees(t, base, head), "main..feature")
		if err != nil {
			t.Fatal(err)
		}
		return reviewtest.RunDebate(t, c, toulmin.ProtocolStandard)
	}
	tr := decide(externalBase, externalHead)
	if tr.Record.Decision != voting.RequestChanges {
		t.Errorf("defects: decision %s, want request_changes", tr.Record.Decision)
	}
	required := strings.Join(tr.Record.RequiredChanges, "\n")
	for _, want := range []string{"app/run.py:17: use yaml.safe_load", "scripts/deploy.sh:12: use \"${var:?}\"", "native/buf.c:16: bound the copy"} {
		if !strings.Contains(required, want) {
			t.Errorf("required changes lack %q:\n%s", want, required)
		}
	}

	tr = decide(externalBenignBase, externalBenignHead)
	if tr.Record.Decision == voting.RequestChanges {
		t.Errorf("benign change: request_changes; required: %q", tr.Record.RequiredChanges)
	}
	var external int
	for _, e := range tr.Evidence {
		if !evidence.IsWholeTree(e.Analyzer) {
			continue
		}
		external++
		if e.Severity != voting.SeverityLow {
			t.Errorf("benign change: %s %s at %s", e.Severity, e.Rule, e.Location())
		}
	}
	if external == 0 {
		t.Errorf("the benign change drew no remark at all; its md5 and random uses should be low remarks")
	}
	for _, r := range tr.Record.RequiredChanges {
		for _, tool := range []string{".py:", ".js:", ".ts:", ".sh:", ".c:"} {
			if strings.Contains(r, tool) {
				t.Errorf("benign change: required %q", r)
			}
		}
	}
}

// A bare diff has no trees: the tools run on the files it adds whole, and only what is on added
// lines counts.
func TestDiffWithoutTreesRunsExternalOnContent(t *testing.T) {
	needExternalTools(t)
	head, err := os.ReadFile(filepath.Join(externalHead, "app", "run.py"))
	if err != nil {
		t.Fatal(err)
	}
	c := reviewtest.ChangeOf(t, map[string]string{"app/run.py": string(head)})
	ev, notes, err := review.GatherEvidence(context.Background(), c, evidence.DefaultAnalyzers())
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []int{9, 17, 22} { // a new file: the base's defect is new too
		if evidenceAt(ev, map[int]string{9: "bandit:B602", 17: "bandit:B506", 22: "bandit:B602"}[line], "app/run.py", line) == nil {
			t.Errorf("no bandit finding at app/run.py:%d:\n%s", line, reviewtest.Dump(ev))
		}
	}
	if n := noteWith(notes, "bandit (Python) on the head content of 1 file(s), no base tree to compare with: 3 finding(s) on added lines, 0 on other lines left out"); n == "" {
		t.Errorf("notes = %q", notes)
	}
}

// A pull request's modified file is read whole from GitHub; the tools see it all, and the
// findings on lines the change did not add (the base's defect, as context) are left out.
func TestPullRequestExternalFindingsOnAddedLines(t *testing.T) {
	needExternalTools(t)
	repo := gittest.FromTrees(t, externalBase, externalHead)
	diff, err := exec.Command("git", "-C", repo, "diff", "--no-color", "--no-ext-diff", "main..feature", "--", "scripts/deploy.sh").Output()
	if err != nil {
		t.Fatalf("git diff: %v", err)
	}
	head, err := os.ReadFile(filepath.Join(externalHead, "scripts", "deploy.sh"))
	if err != nil {
		t.Fatal(err)
	}
	srv := githubtest.New(t)
	srv.PRs["acme/shop#9"] = &githubtest.PR{Title: "Publish step", BaseRef: "main", HeadRef: "publish", HeadSHA: "def456", Diff: string(diff)}
	srv.Contents["acme/shop@def456:scripts/deploy.sh"] = string(head)
	ctx := context.Background()
	c, err := review.ReadPullRequest(ctx, review.NewGitHub(reviewtest.GitHubClient(t, srv)), review.PullRequest{"acme", "shop", 9}, nil, nil, review.DefaultMaxDiffBytes)
	if err != nil {
		t.Fatal(err)
	}
	if f := c.File("scripts/deploy.sh"); f == nil || !f.HasContent || string(f.Content) != string(head) {
		t.Fatalf("the head content of the modified script was not read")
	}
	ev, notes, err := review.GatherEvidence(ctx, c, evidence.DefaultAnalyzers())
	if err != nil {
		t.Fatal(err)
	}
	if evidenceAt(ev, "shellcheck:SC2115", "scripts/deploy.sh", 12) == nil {
		t.Errorf("no SC2115 on the added line 12:\n%s", reviewtest.Dump(ev))
	}
	if e := evidenceAt(ev, "shellcheck:SC2115", "scripts/deploy.sh", 8); e != nil {
		t.Errorf("the base's SC2115 (a context line) was reported: %+v", *e)
	}
	if n := noteWith(notes, "shellcheck (shell) on the head content of 1 file(s), no base tree to compare with: 1 finding(s) on added lines, 1 on other lines left out"); n == "" {
		t.Errorf("notes = %q", notes)
	}
}

// A tool that is not installed is named once in the notes; the other analyzers go on.
func TestExternalToolMissingIsNoted(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	c := reviewtest.ChangeOf(t, map[string]string{
		"app/run.py":  "import os\n\n\ndef run(cmd):\n    os.system(\"ls \" + cmd)\n",
		"app/util.py": "def f():\n    return 1\n",
	})
	ev, notes, err := review.GatherEvidence(context.Background(), c, evidence.DefaultAnalyzers())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, note := range notes {
		if strings.Contains(note, "bandit") {
			n++
			if note != "bandit not installed: Python files were not analysed by it (no bandit on PATH)" {
				t.Errorf("note = %q", note)
			}
		}
	}
	if n != 1 {
		t.Errorf("bandit named %d times in %q", n, notes)
	}
	if len(reviewtest.Found(ev, rules.RuleCommandInjection)) == 0 {
		t.Errorf("the line analyzer did not run on:\n%s", reviewtest.Dump(ev))
	}
}

// A tool that prints garbage is named in a note with what it printed; nothing fails.
func TestExternalToolGarbageIsNoted(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "bandit"), []byte("#!/bin/sh\necho 'Segmentation fault' >&2\nexit 139\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	c := reviewtest.ChangeOf(t, map[string]string{"app/run.py": "print(1)\n"})
	ev, notes, err := review.GatherEvidence(context.Background(), c, evidence.DefaultAnalyzers())
	if err != nil {
		t.Fatal(err)
	}
	if n := noteWith(notes, "bandit failed: bandit exited with status 139 and its output is not its report"); n == "" || !strings.Contains(n, "Segmentation fault") || !strings.HasSuffix(n, "; Python files were not analysed by it") {
		t.Errorf("notes = %q", notes)
	}
	for _, e := range ev {
		if evidence.IsWholeTree(e.Analyzer) {
			t.Errorf("evidence from a failed tool: %+v", e)
		}
	}
}

// Every external rule is a rule of the catalog with a stakeholder of the default panel, and the
// catch-all rules too.
func TestExternalRulesAreRules(t *testing.T) {
	for _, c := range external.Checks() {
		r, ok := rules.Rules[c.Rule]
		if !ok {
			t.Errorf("%s is not a rule", c.Rule)
			continue
		}
		if r.Stakeholder != rules.Security && r.Stakeholder != rules.Maintainability && r.Stakeholder != rules.Performance || !r.Severity.Valid() ||
			r.Warrant == "" || r.Fix == "" || r.Title == "" || !strings.HasPrefix(r.Reference, c.Source+" ") {
			t.Errorf("rule %s = %+v", c.Rule, r)
		}
	}
	if rules.Rules["bandit:B602"].Stakeholder != rules.Security || rules.Rules["cppcheck:memleak"].Stakeholder != rules.Performance || rules.Rules["shellcheck:other"].Stakeholder != rules.Maintainability {
		t.Errorf("stakeholders: B602 %s, memleak %s, shellcheck:other %s", rules.Rules["bandit:B602"].Stakeholder, rules.Rules["cppcheck:memleak"].Stakeholder, rules.Rules["shellcheck:other"].Stakeholder)
	}
}
