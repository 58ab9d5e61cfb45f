package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
)

var resumeHint = regexp.MustCompile(`debatebot debate --resume (deb-[0-9a-f]{12})`)

// A local debate is kept in the store phase by phase: quit at a checkpoint, it is listed, and
// --resume goes on from where it stopped, without running again a phase it completed, with the
// change, protocol and configuration it began with.
func TestDebateResumeAndList(t *testing.T) {
	db := filepath.Join(t.TempDir(), "local.db")
	env := map[string]string{"DEBATEBOT_DATABASE_URL": "sqlite:" + db}
	diff := filepath.Join(t.TempDir(), "change.diff")
	data, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(diff, data, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"debate", "--offline", "--diff", diff, "--protocol", "extended", "--checkpoints", "--format", "json"}

	// Quit at the first checkpoint: not completed, kept, and the way back is printed.
	code, out, errOut := runCmd(t, "q\n", env, args...)
	if code != exitError || out != "" {
		t.Fatalf("quit: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	m := resumeHint.FindStringSubmatch(errOut)
	if m == nil || strings.Contains(errOut, "debatebot: stopped") {
		t.Fatalf("quit did not say how to resume, or printed an error:\n%s", errOut)
	}
	id := m[1]
	quit := keptTranscript(t, db, id)
	if len(quit.Timeline) == 0 {
		t.Fatal("nothing was kept before the quit")
	}

	code, list, errOut := runCmd(t, "", env, "debate", "--list")
	if code != 0 || !regexp.MustCompile(id+`\s+\S+ \S+\s+stopped: --resume\s+extended\s+[1-9]\d*\s+0\s+`+regexp.QuoteMeta(diff)).MatchString(list) {
		t.Fatalf("list: exit %d\n%s%s", code, list, errOut)
	}

	// The diff file changes after the debate began: the resume debates what was kept.
	if err := os.WriteFile(diff, []byte("not a diff any more\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCmd(t, "e\n", env, "debate", "--resume", id, "--format", "json")
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	rec := readRecord(t, out)
	if rec.Decision.DebateID != id || rec.Decision.Decision == "" {
		t.Errorf("resumed record = %+v", rec.Decision)
	}
	if !strings.Contains(errOut, "[C]ontinue") {
		t.Errorf("the resumed debate did not ask again at the checkpoint it was quit at:\n%s", errOut)
	}
	// The phases completed before the quit are the same phases, not run again.
	done := keptTranscript(t, db, id)
	if len(done.Timeline) <= len(quit.Timeline) {
		t.Fatalf("resumed timeline has %d phases, the quit one %d", len(done.Timeline), len(quit.Timeline))
	}
	for i, ph := range quit.Timeline {
		if got := done.Timeline[i]; got.Phase != ph.Phase || !got.StartedAt.Equal(ph.StartedAt) {
			t.Errorf("phase %d: resumed %s at %s, kept %s at %s: it ran again", i, got.Phase, got.StartedAt, ph.Phase, ph.StartedAt)
		}
	}
	if got := done.Checkpoints; len(got) != 1 || got[0].Action != toulmin.CheckpointEnd || got[0].AfterRound != 1 {
		t.Errorf("checkpoints = %+v, want one end after round 1", got)
	}

	// Decided: listed with its decision, and --resume prints it without running it again.
	_, list, _ = runCmd(t, "", env, "debate", "--list")
	if !regexp.MustCompile(id + `\s+\S+ \S+\s+` + regexp.QuoteMeta(string(rec.Decision.Decision)) + `\s`).MatchString(list) {
		t.Errorf("list after the decision:\n%s", list)
	}
	code, again, errOut := runCmd(t, "", env, "debate", "--resume", id, "--format", "json")
	if code != 0 || !strings.Contains(errOut, "was decided on") || again != out {
		t.Errorf("resume of a decided debate: exit %d, stderr %s, same record: %v", code, errOut, again == out)
	}
	if after := keptTranscript(t, db, id); !after.EndedAt.Equal(done.EndedAt) {
		t.Errorf("printing a decided debate ran it again")
	}
}

// keptTranscript reads the last transcript the store keeps for a debate.
func keptTranscript(t *testing.T, db, id string) *toulmin.Transcript {
	t.Helper()
	st, err := store.Open(context.Background(), "sqlite:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	row, err := st.Debate(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var tr toulmin.Transcript
	if err := json.Unmarshal(row.Checkpoint, &tr); err != nil {
		t.Fatalf("kept checkpoint of %s: %v", id, err)
	}
	return &tr
}

func TestDebateResumeErrors(t *testing.T) {
	env := map[string]string{"DEBATEBOT_DATABASE_URL": "sqlite:" + filepath.Join(t.TempDir(), "local.db")}
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"unknown id":        {[]string{"debate", "--resume", "deb-000000000000"}, "--resume deb-000000000000: no such debate in the store ('debatebot debate --list' lists them)"},
		"source and resume": {[]string{"debate", "--resume", "deb-000000000000", "--diff", example}, "--diff does not go with --resume"},
		"config and resume": {[]string{"debate", "--resume", "deb-000000000000", "--protocol", "extended"}, "--protocol does not go with --resume"},
		"list with format":  {[]string{"debate", "--list", "--format", "json"}, "--format does not go with --list"},
		"store off":         {[]string{"debate", "--list", "--store", "off"}, "--list needs the store"},
	} {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runCmd(t, "", env, tc.args...)
			if code != exitUsage || out != "" || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want usage error %q", code, out, errOut, tc.want)
			}
		})
	}
	code, out, _ := runCmd(t, "", env, "debate", "--list")
	if code != 0 || out != "no debates kept in the store yet\n" {
		t.Errorf("empty list: exit %d %q", code, out)
	}
	// --store off runs the debate and keeps nothing.
	if code, _, errOut := runCmd(t, "", env, "debate", "--offline", "--diff", example, "--store", "off"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, out, _ = runCmd(t, "", env, "debate", "--list"); !strings.Contains(out, "no debates kept") {
		t.Errorf("--store off kept the debate:\n%s", out)
	}
	// A store that cannot be opened does not stop the debate; it says it is not kept.
	bad := map[string]string{"DEBATEBOT_DATABASE_URL": "sqlite:" + filepath.Join(t.TempDir(), "missing", "dir", "x.db")}
	code, md, errOut := runCmd(t, "", bad, "debate", "--offline", "--diff", example)
	if code != 0 || !strings.HasPrefix(md, "# Debate: ") || !strings.Contains(errOut, "the debate is not kept, so it cannot be resumed") {
		t.Errorf("unopenable store: exit %d, stderr %s", code, errOut)
	}
}

// A git range is kept at the commits it resolved to: the branch moving on does not change the
// debate that resumes.
func TestDebateResumeGitRangeAfterTheBranchMoved(t *testing.T) {
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
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitDo("init", "-q", "-b", "main")
	write("README.md", "# x\n")
	gitDo("add", "-A")
	gitDo("commit", "-qm", "init")
	gitDo("checkout", "-qb", "feature")
	// The example's new files: a change on which the offline agents go to a round.
	data, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	var added strings.Builder
	for _, part := range strings.SplitAfter(string(data), "\ndiff --git ")[1:] {
		if strings.Contains(part[:strings.Index(part, "\n---")], "new file mode") {
			added.WriteString("diff --git " + strings.TrimSuffix(part, "diff --git "))
		}
	}
	write("new.diff", added.String())
	gitDo("apply", "new.diff")
	if err := os.Remove(filepath.Join(dir, "new.diff")); err != nil {
		t.Fatal(err)
	}
	gitDo("add", "-A")
	gitDo("commit", "-qm", "Add user search")
	env := map[string]string{"DEBATEBOT_DATABASE_URL": "sqlite:" + filepath.Join(t.TempDir(), "local.db")}
	code, _, errOut := runCmd(t, "q\n", env, "debate", "--git", "main..feature", "--dir", dir, "--protocol", "extended", "--checkpoints")
	m := resumeHint.FindStringSubmatch(errOut)
	if code != exitError || m == nil {
		t.Fatalf("quit: exit %d\n%s", code, errOut)
	}
	head, err := exec.Command("git", "-C", dir, "rev-parse", "feature").Output()
	if err != nil {
		t.Fatal(err)
	}
	write("store/other.go", "package store\n")
	gitDo("add", "-A")
	gitDo("commit", "-qm", "More")

	code, out, errOut := runCmd(t, "c\n", env, "debate", "--resume", m[1], "--format", "json")
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	rec := readRecord(t, out)
	if rec.Decision.HeadSHA != strings.TrimSpace(string(head)) || rec.Decision.DebateID != m[1] {
		t.Errorf("resumed record: head %s id %s, want %s %s", rec.Decision.HeadSHA, rec.Decision.DebateID, strings.TrimSpace(string(head)), m[1])
	}
}
