package main

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// Each run of `debatebot debate` is a debate of its own: the same diff debated twice keeps two
// decided debates, neither overwriting the other.
func TestDebateRunsOfTheSameDiffKeepTwoDebates(t *testing.T) {
	env := map[string]string{"DEBATEBOT_DATABASE_URL": "sqlite:" + filepath.Join(t.TempDir(), "local.db")}
	var ids []string
	for range 2 {
		code, out, errOut := runCmd(t, "", env, "debate", "--offline", "--diff", example, "--format", "json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		rec := readRecord(t, out)
		if !regexp.MustCompile(`^deb-[0-9a-f]{12}$`).MatchString(rec.Decision.DebateID) || rec.Decision.Decision == "" {
			t.Fatalf("record = %+v", rec.Decision)
		}
		ids = append(ids, rec.Decision.DebateID)
	}
	if ids[0] == ids[1] {
		t.Fatalf("two runs of the same diff got the same id %s", ids[0])
	}
	_, list, errOut := runCmd(t, "", env, "debate", "--list")
	for _, id := range ids {
		if !regexp.MustCompile(regexp.QuoteMeta(id) + `\s+\S+ \S+\s+(approve|approve_with_changes|request_changes|escalate)\s`).MatchString(list) {
			t.Errorf("debate %s is not listed as decided:\n%s%s", id, list, errOut)
		}
	}
	// Each is printed again from the store, under its own id.
	for _, id := range ids {
		code, out, errOut := runCmd(t, "", env, "debate", "--resume", id, "--format", "json")
		if code != 0 || readRecord(t, out).Decision.DebateID != id || !strings.Contains(errOut, "was decided on") {
			t.Errorf("--resume %s: exit %d, stderr %s", id, code, errOut)
		}
	}
}

// --resume without an id goes on with the newest debate that stopped before its decision; once
// none is left, it says so.
func TestDebateResumeLatestStopped(t *testing.T) {
	env := map[string]string{"DEBATEBOT_DATABASE_URL": "sqlite:" + filepath.Join(t.TempDir(), "local.db")}
	args := []string{"debate", "--offline", "--diff", example, "--protocol", "extended", "--checkpoints", "--format", "json"}
	// A decided debate first, then a stopped one: the stopped one is the one resumed.
	if code, _, errOut := runCmd(t, "c\nc\nc\n", env, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, _, errOut := runCmd(t, "q\n", env, args...)
	m := resumeHint.FindStringSubmatch(errOut)
	if code != exitError || m == nil {
		t.Fatalf("quit: exit %d\n%s", code, errOut)
	}
	before := keptTranscript(t, filepath.Join(strings.TrimPrefix(env["DEBATEBOT_DATABASE_URL"], "sqlite:")), m[1])

	code, out, errOut := runCmd(t, "e\n", env, "debate", "--resume", "--format", "json")
	if code != 0 {
		t.Fatalf("--resume: exit %d: %s", code, errOut)
	}
	rec := readRecord(t, out)
	if rec.Decision.DebateID != m[1] || rec.Decision.Decision == "" {
		t.Fatalf("--resume decided %+v, want debate %s", rec.Decision, m[1])
	}
	after := keptTranscript(t, strings.TrimPrefix(env["DEBATEBOT_DATABASE_URL"], "sqlite:"), m[1])
	if len(after.Timeline) <= len(before.Timeline) || !after.Timeline[0].StartedAt.Equal(before.Timeline[0].StartedAt) {
		t.Errorf("the resumed debate did not go on from its checkpoint: %d phases, then %d", len(before.Timeline), len(after.Timeline))
	}
	code, out, errOut = runCmd(t, "", env, "debate", "--resume")
	if code != exitUsage || out != "" || !strings.Contains(errOut, "no stopped debate to resume") {
		t.Errorf("--resume with none stopped: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
}

// With neither --store nor DEBATEBOT_DATABASE_URL, debates are kept in the user's data
// directory: $XDG_DATA_HOME/debatebot/debatebot.db, else ~/.local/share/debatebot; never in the
// working directory.
func TestDebateDefaultStoreIsTheUsersDataDirectory(t *testing.T) {
	diff, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	t.Chdir(cwd)
	xdg, home := t.TempDir(), t.TempDir()
	// Without XDG_DATA_HOME: ~/.local/share on Linux and the BSDs, the system's place on macOS.
	fallback := filepath.Join(home, ".local", "share", "debatebot", "debatebot.db")
	if runtime.GOOS == "darwin" {
		fallback = filepath.Join(home, "Library", "Application Support", "debatebot", "debatebot.db")
	}
	for name, tc := range map[string]struct {
		env  map[string]string
		want string
	}{
		"XDG_DATA_HOME": {map[string]string{"XDG_DATA_HOME": xdg, "HOME": home}, filepath.Join(xdg, "debatebot", "debatebot.db")},
		"HOME":          {map[string]string{"HOME": home}, fallback},
		// A relative XDG_DATA_HOME is ignored, as the XDG rules say: it would be the cwd's.
		"relative XDG_DATA_HOME": {map[string]string{"XDG_DATA_HOME": "data", "HOME": home}, fallback},
	} {
		t.Run(name, func(t *testing.T) {
			tc.env["DEBATEBOT_DATABASE_URL"] = "" // set, empty: the default store
			code, out, errOut := runCmd(t, string(diff), tc.env, "debate", "--offline", "--diff", "-", "--format", "json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			id := readRecord(t, out).Decision.DebateID
			if _, err := os.Stat(tc.want); err != nil {
				t.Fatalf("the debate was not kept at %s: %v", tc.want, err)
			}
			_, list, _ := runCmd(t, "", tc.env, "debate", "--list")
			if !strings.Contains(list, id) {
				t.Errorf("the default store does not list %s:\n%s", id, list)
			}
			if left, _ := os.ReadDir(cwd); len(left) > 0 {
				t.Errorf("the debate wrote in the working directory: %v", left)
			}
		})
	}
	// No home at all: the debate runs, and says it is not kept, rather than write in the cwd.
	code, out, errOut := runCmd(t, "", map[string]string{"DEBATEBOT_DATABASE_URL": ""}, "debate", "--offline", "--question", "Should the export be paginated?")
	if code != 0 || !strings.HasPrefix(out, "# Debate: ") || !strings.Contains(errOut, "the debate is not kept") || !strings.Contains(errOut, "--store") {
		t.Errorf("no data directory: exit %d, stderr %s", code, errOut)
	}
	if left, _ := os.ReadDir(cwd); len(left) > 0 {
		t.Errorf("the debate wrote in the working directory: %v", left)
	}
}
