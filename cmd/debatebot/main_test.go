package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/store/storetest"
)

const example = "../../examples/admin-export.diff"

func runCmd(t *testing.T, stdin string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if _, ok := env["DEBATEBOT_DATABASE_URL"]; !ok {
		// Local debates are kept in a store: each test its own, never the package directory's
		// (a copy of one migrated once, which spares each test the migrations).
		env = maps.Clone(env)
		if env == nil {
			env = map[string]string{}
		}
		env["DEBATEBOT_DATABASE_URL"] = "sqlite:" + storetest.SQLite(t)
	}
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut, func(k string) string { return env[k] })
	return code, out.String(), errOut.String()
}

func TestDebateExample(t *testing.T) {
	code, out, errOut := runCmd(t, "", nil, "debate", "--diff", example)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "# Debate: ") || !strings.Contains(out, "## Decision Record\n\n```yaml\ndecision:\n") {
		t.Errorf("markdown output lacks the transcript or the record:\n%s", out)
	}
	if errOut != "" {
		t.Errorf("stderr is not a terminal, yet got %q", errOut)
	}
}

func TestDebateJSONFromStdin(t *testing.T) {
	diff, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, string(diff), nil, "debate", "--diff", "-", "--format", "json", "--protocol", "fast-track")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rec struct {
		Decision map[string]any `json:"decision"`
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"debate_id", "repository", "pr_number", "head_sha", "trigger", "protocol", "decision", "consensus_score",
		"consensus_level", "votes", "dissenting_opinions", "required_changes", "follow_up", "tokens", "started_at", "ended_at"} {
		if _, ok := rec.Decision[k]; !ok {
			t.Errorf("decision record lacks %q", k)
		}
	}
	if rec.Decision["protocol"] != "fast-track" || rec.Decision["trigger"] != "cli" {
		t.Errorf("protocol %v trigger %v", rec.Decision["protocol"], rec.Decision["trigger"])
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := write("empty.diff", "")
	prose := write("notes.txt", "just some notes\nnot a patch\n")
	binary := write("logo.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	badCfg := write("debatebot.yml", "protocol: standard\nthreshold: 0.5\n")
	tests := map[string]struct {
		args []string
		want string
	}{
		"no input":         {[]string{"debate"}, "give exactly one of --diff FILE, --git BASE..HEAD or --question TEXT"},
		"two inputs":       {[]string{"debate", "--diff", example, "--question", "x"}, "give exactly one of"},
		"unknown flag":     {[]string{"debate", "--dif", example}, "flag provided but not defined: -dif"},
		"unknown command":  {[]string{"serve-all"}, `unknown command "serve-all"`},
		"empty diff":       {[]string{"debate", "--diff", empty}, empty + ": empty diff"},
		"not a diff":       {[]string{"debate", "--diff", prose}, prose + ": no file changes found: not a unified diff"},
		"binary file":      {[]string{"debate", "--diff", binary}, binary + ": binary data, not a unified diff"},
		"missing file":     {[]string{"debate", "--diff", filepath.Join(dir, "nope.diff")}, "nope.diff: cannot read: no such file or directory"},
		"huge diff":        {[]string{"debate", "--diff", example, "--max-diff-bytes", "1000"}, "larger than the 1000 bytes a diff may have"},
		"broken config":    {[]string{"debate", "--diff", example, "--config", badCfg}, badCfg + `: line 2: unknown key "threshold"`},
		"bad protocol":     {[]string{"debate", "--diff", example, "--protocol", "quick"}, `unknown protocol "quick"`},
		"bad format":       {[]string{"debate", "--diff", example, "--format", "html"}, `--format "html": want markdown, json or sarif`},
		"bad git range":    {[]string{"debate", "--git", "main", "--dir", dir}, "want a range BASE..HEAD"},
		"not a repository": {[]string{"debate", "--git", "main..HEAD", "--dir", dir}, "is not inside a git repository"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runCmd(t, "", nil, tc.args...)
			if code != exitUsage {
				t.Errorf("exit = %d, want %d", code, exitUsage)
			}
			if out != "" {
				t.Errorf("stdout = %q, want nothing", out)
			}
			if strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "debatebot: ") || !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr = %q, want one line containing %q", errOut, tc.want)
			}
		})
	}
}

func TestDebateGitRange(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required for this test; .ci/run installs it")
	}
	dir := t.TempDir()
	gitDo := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitDo("init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitDo("add", "-A")
	gitDo("commit", "-qm", "init")
	gitDo("checkout", "-qb", "feature")
	src := "package store\n\nimport (\n\t\"database/sql\"\n\t\"fmt\"\n)\n\nfunc Find(db *sql.DB, name string) (*sql.Rows, error) {\n\treturn db.Query(fmt.Sprintf(\"SELECT * FROM users WHERE name = '%s'\", name))\n}\n"
	if err := os.MkdirAll(filepath.Join(dir, "store"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "store", "find.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	gitDo("add", "-A")
	gitDo("commit", "-qm", "Add user search")
	code, out, errOut := runCmd(t, "", nil, "debate", "--git", "main..feature", "--dir", dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rec struct {
		Decision struct {
			HeadSHA  string   `json:"head_sha"`
			Decision string   `json:"decision"`
			Required []string `json:"required_changes"`
		} `json:"decision"`
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Decision.HeadSHA) != 40 || rec.Decision.Decision != "request_changes" || !strings.HasPrefix(rec.Decision.Required[0], "store/find.go:9:") {
		t.Errorf("record = %+v", rec.Decision)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCmd(t, "", nil, "version")
	if code != 0 || !strings.HasPrefix(out, "debatebot ") {
		t.Errorf("version: exit %d output %q", code, out)
	}
}

func TestDebateWithModel(t *testing.T) {
	srv := llmtest.New(t, nil)
	env := map[string]string{"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": srv.BaseURL(), "DEBATEBOT_MODEL": "gpt-4.1-mini"}
	code, out, errOut := runCmd(t, "", env, "debate", "--diff", example)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if len(srv.Requests()) == 0 || srv.Requests()[0].Model != "gpt-4.1-mini" {
		t.Fatalf("the model was not called with DEBATEBOT_MODEL")
	}
	if strings.Contains(out, "Offline debate") || !strings.Contains(out, "(model gpt-4.1-mini)") || !strings.Contains(out, "cost_usd:") {
		t.Errorf("the transcript does not show model-backed agents and their cost:\n%s", out[:min(len(out), 2000)])
	}
	calls := len(srv.Requests())
	code, out, _ = runCmd(t, "", env, "debate", "--diff", example, "--offline")
	if code != 0 || len(srv.Requests()) != calls || !strings.Contains(out, "Offline debate") {
		t.Errorf("--offline still called the model (%d calls) or did not say it was offline", len(srv.Requests())-calls)
	}
}

func TestServeNeedsConfiguration(t *testing.T) {
	code, _, errOut := runCmd(t, "", map[string]string{}, "serve")
	if code != exitUsage || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "GITHUB_APP_INTEGRATION_ID: not set") {
		t.Errorf("serve without configuration: exit %d, stderr %q", code, errOut)
	}
}

func TestStatsCommand(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "s.db")
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FinishDebate(context.Background(), &store.Debate{ID: "deb-1", Protocol: "standard", Decision: "approve", ConsensusLevel: "strong", Prompt: 100,
		StartedAt: time.Unix(0, 0), EndedAt: time.Unix(3, 0)}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	env := map[string]string{"DEBATEBOT_DATABASE_URL": db}
	code, out, errOut := runCmd(t, "", env, "stats")
	if code != 0 || !strings.Contains(out, "debates decided       1") || !strings.Contains(out, "consensus rate        100.0%") || !strings.Contains(out, "mean duration         3.0s (standard)") {
		t.Errorf("stats: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCmd(t, "", env, "stats", "--format", "json")
	if code != 0 || !strings.Contains(out, `"tokens_per_debate": 100`) {
		t.Errorf("stats json: exit %d\n%s", code, out)
	}
	code, _, errOut = runCmd(t, "", map[string]string{"DEBATEBOT_DATABASE_URL": "mysql://x"}, "stats")
	if code != exitError || !strings.Contains(errOut, "unsupported database url") {
		t.Errorf("bad url: exit %d %q", code, errOut)
	}
}

func TestStatsCommandDialectic(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "s.db")
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, d := range []store.DialecticDebate{
		{ID: "f1", Type: "failure", PR: "acme/shop#7", TaskID: "t1", HeadSHA: "h1", Resolution: "PIVOT", At: time.Unix(1, 0)},
		{ID: "f2", Type: "failure", PR: "acme/shop#7", TaskID: "t2", HeadSHA: "h1", Resolution: "RETRY", At: time.Unix(2, 0)},
		{ID: "p1", Type: "planning", PR: "acme/shop#7", Resolution: "MODIFY", At: time.Unix(3, 0)},
	} {
		if err := st.SaveDialecticDebate(ctx, &d); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.DebateOutcome(ctx, "acme/shop#7", "t1", "h2", true); err != nil {
		t.Fatal(err)
	}
	if err := st.DebateOutcome(ctx, "acme/shop#7", "t2", "h1", true); err != nil {
		t.Fatal(err)
	}
	st.Close()
	env := map[string]string{"DEBATEBOT_DATABASE_URL": db}
	code, out, errOut := runCmd(t, "", env, "stats")
	for _, want := range []string{"failure debates       PIVOT 1, RETRY 1\n", "planning debates      MODIFY 1\n", "failure debates rerun 2 (helped 50.0%, false positives 50.0%)\n"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("stats lacks %q: exit %d\n%s%s", want, code, out, errOut)
		}
	}
	code, out, _ = runCmd(t, "", env, "stats", "--format", "json")
	if code != 0 || !strings.Contains(out, `"false_positive_rate": 0.5`) || !strings.Contains(out, `"PIVOT": 1`) {
		t.Errorf("stats json: exit %d\n%s", code, out)
	}
}
