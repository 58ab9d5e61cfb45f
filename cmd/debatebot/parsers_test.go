package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/gittest"
	"github.com/debatebot/debatebot/review/render"
)

// deepJSDiff is a pull request that adds a JavaScript file of 300,000 nested brackets (600 KB):
// given to the parser it overflowed the stack, which ends the process.
func deepJSDiff() string {
	const n = 300000
	return changetest.NewFileDiff("web/deep.js", "const deep = "+strings.Repeat("[", n)+strings.Repeat("]", n)+";\n")
}

const deepJSNote = "web/deep.js: not compared: nesting deeper than 1000"

// `debatebot serve`, as a real process, gets the deeply nested JavaScript pull request and a
// normal one together: it stays up throughout, both are reviewed and published, and the
// hostile one's transcript names the file as not compared.
func TestServeSurvivesDeeplyNestedJavaScript(t *testing.T) {
	t.Parallel() // a process of its own: waits on it overlap another test's
	bin := buildBinary(t)
	gh := githubtest.New(t)
	gh.PRs["acme/shop#7"] = &githubtest.PR{Title: "Add a table", BaseRef: "main", HeadRef: "deep", HeadSHA: "dee9000", Diff: deepJSDiff()}
	putExample(t, gh, 8, "abc123")
	p := newServe(t, bin, appEnv(t, gh, filepath.Join(t.TempDir(), "debatebot.db"), ""))
	p.start()
	defer p.stop()
	started := time.Now()
	pid := p.cmd.Process.Pid
	exited := make(chan struct{})
	go func() { _, _ = p.cmd.Process.Wait(); close(exited) }()
	for pr, head := range map[int]string{7: "dee9000", 8: "abc123"} {
		body := webhookFixture(t, "pull_request.opened.json", pr, func(m map[string]any) {
			m["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = head
		})
		if code := p.post("pull_request", "d-"+itoa(pr), body); code != http.StatusOK && code != http.StatusAccepted {
			t.Fatalf("delivery for #%d answered %d\n%s", pr, code, p.logs.String())
		}
	}
	decided := func(pr string) string {
		for _, c := range gh.CommentsOn(pr) {
			if strings.HasPrefix(c.Body, render.DecisionMarker) {
				return c.Body
			}
		}
		return ""
	}
	deadline := time.Now().Add(90 * time.Second)
	for decided("acme/shop#7") == "" || decided("acme/shop#8") == "" {
		select {
		case <-exited:
			t.Fatalf("serve exited %s after it started:\n%s", time.Since(started), clipLog(p.logs.String()))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("both pull requests were not decided:\n%s", clipLog(p.logs.String()))
		}
		resp, err := http.Get("http://" + p.addr + "/healthz")
		if err != nil {
			t.Fatalf("serve stopped answering: %v\n%s", err, clipLog(p.logs.String()))
		}
		resp.Body.Close()
		time.Sleep(50 * time.Millisecond)
	}
	select {
	case <-exited:
		t.Fatalf("serve exited:\n%s", clipLog(p.logs.String()))
	default:
	}
	if strings.Contains(p.logs.String(), "fatal error") {
		t.Errorf("the log has a fatal error:\n%s", clipLog(p.logs.String()))
	}
	t.Logf("serve (pid %d) up %s across both reviews", pid, time.Since(started).Round(time.Millisecond))
	transcript := ""
	for _, c := range gh.CommentsOn("acme/shop#7") {
		if strings.HasPrefix(c.Body, render.TranscriptMarker) {
			transcript = c.Body
		}
	}
	if !strings.Contains(transcript, deepJSNote) {
		t.Errorf("the hostile pull request's transcript does not name the file:\n%s", clipLog(transcript))
	}
	if !strings.Contains(decided("acme/shop#8"), "decision: ") {
		t.Errorf("the normal pull request has no decision")
	}
}

func clipLog(s string) string {
	if len(s) > 4000 {
		return s[:2000] + "\n…\n" + s[len(s)-2000:]
	}
	return s
}

// The command line debates the same change: exit 0, and the file named as not compared.
func TestDebateDeeplyNestedJavaScriptNamed(t *testing.T) {
	p := filepath.Join(t.TempDir(), "deep.diff")
	if err := os.WriteFile(p, []byte(deepJSDiff()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, "", nil, "debate", "--diff", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, deepJSNote) {
		t.Errorf("the transcript does not name the file as not compared:\n%s", clipLog(out))
	}
}

// A change that removes an admin check and a path check from two Python files and adds a third
// that makes Python's parser run out of memory (x = ----…1, 1 MB): the hostile file costs only
// itself, so the removals are still found, the decision is request_changes with the security
// stakeholder seated over them, and the hostile file is named.
func TestDebatePythonFileBeyondParserLimitsCostsOnlyItself(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed (Debian: apt-get install python3)")
	}
	base, head := t.TempDir(), t.TempDir()
	write := func(dir, name, data string) {
		t.Helper()
		full := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(base, "app/admin.py", "from app import db\n\n\ndef delete_user(request, user_id):\n    if not request.user.is_admin:\n        raise PermissionError(\"admins only\")\n    db.delete_user(user_id)\n    return {\"deleted\": user_id}\n")
	write(head, "app/admin.py", "from app import db\n\n\ndef delete_user(request, user_id):\n    db.delete_user(user_id)\n    return {\"deleted\": user_id}\n")
	write(base, "app/files.py", "import os\n\n\ndef read_upload(root, name):\n    path = os.path.join(root, name)\n    if not os.path.realpath(path).startswith(os.path.realpath(root) + os.sep):\n        raise ValueError(\"path outside the upload directory\")\n    with open(path) as f:\n        return f.read()\n")
	write(head, "app/files.py", "import os\n\n\ndef read_upload(root, name):\n    path = os.path.join(root, name)\n    with open(path) as f:\n        return f.read()\n")
	write(head, "app/table.py", "x = "+strings.Repeat("-", 1000000)+"1\n")
	dir := gittest.FromTrees(t, base, head)
	code, out, errOut := runCmd(t, "", nil, "debate", "--git", "main..feature", "--dir", dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Decision struct {
			Decision     string `json:"decision"`
			Perspectives []struct {
				Agent  string `json:"agent"`
				Reason string `json:"reason"`
			} `json:"perspectives"`
		} `json:"decision"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	if doc.Decision.Decision != "request_changes" {
		t.Errorf("decision %s, want request_changes", doc.Decision.Decision)
	}
	seated := false
	for _, p := range doc.Decision.Perspectives {
		seated = seated || p.Agent == "security" && strings.Contains(p.Reason, "protection-removed")
	}
	if !seated {
		t.Errorf("the security stakeholder is not seated over the removed checks: %+v", doc.Decision.Perspectives)
	}
	_, md, _ := runCmd(t, "", nil, "debate", "--git", "main..feature", "--dir", dir)
	if !strings.Contains(md, "app/table.py: not compared: MemoryError") {
		t.Errorf("the transcript does not name the hostile file:\n%s", clipLog(md))
	}
}
