package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/handlers"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/review/pull"
	"github.com/debatebot/debatebot/store"
)

// maxAttempts is the queue's bound on the tries of a job (handlers.DefaultQueueOptions).
const maxAttempts = 5

// A pull request whose job ends the process every time it runs must not crash-loop `serve`: here
// `serve` is killed with SIGKILL each time it holds the job (the model hangs, so the job is always
// mid-debate, its trees on disk) and started again. Each takeover counts as an attempt; after the
// cap, the next start fails the job instead of running it again, says once on the pull request
// that it could not be reviewed and why, and concludes its check run; the temporary trees the
// killed processes left are removed at start, while a live replica's workspace on the same
// machine is left alone.
func TestJobThatKillsItsWorkerEndsFailedAndAnswered(t *testing.T) {
	t.Parallel() // a process of its own: waits on it overlap another test's
	githubtest.RequireGitHTTPBackend(t)
	bin := buildBinary(t)
	gh := githubtest.New(t)
	_, head := nilguardPR(t, gh)
	llm := llmtest.New(t, func(int, *llmtest.Request) llmtest.Response { return llmtest.Hang() })
	tmp, db := t.TempDir(), filepath.Join(t.TempDir(), "debatebot.db")
	work := filepath.Join(tmp, WorkDir)
	// Another replica, alive, sharing the machine's temporary directory.
	live, _, err := handlers.OpenWorkspace(work)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	liveTree := filepath.Join(live.Dir, "debatebot-trees-1", "head", "main.go")
	writeTestFile(t, liveTree)

	// The type-checked Go analysis runs the go command in the trees: this one holds the job there,
	// trees on disk, for as long as the process that ran it lives (as a parser that brings the
	// process down would, without the crash).
	fakeBin := t.TempDir()
	hold := "#!/bin/sh\nwhile kill -0 $PPID 2>/dev/null; do sleep 0.05; done\nexit 1\n"
	if err := os.WriteFile(filepath.Join(fakeBin, "go"), []byte(hold), 0o755); err != nil {
		t.Fatal(err)
	}
	p := newServe(t, bin, appEnv(t, gh, db, llm.BaseURL(), "DEBATEBOT_JOB_LEASE=1s", "DEBATEBOT_LOG_LEVEL=debug", "TMPDIR="+tmp,
		"PATH="+fakeBin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+os.Getenv("HOME")))
	p.start()
	defer func() { p.stop() }()
	if code := p.post("pull_request", "d-1", prOpened(t, head)); code != http.StatusOK && code != http.StatusAccepted {
		t.Fatalf("delivery answered %d\n%s", code, p.logs.String())
	}
	st, err := store.Open(context.Background(), "sqlite:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	var left []string // the workspaces of the killed processes
	trees := 0        // tree folders in them when they were killed
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		// The job is held with its trees on disk: kill the process that holds it.
		var mine []string
		waitFor(t, p, 30*time.Second, func() bool {
			j, err := st.Job(context.Background(), 1)
			mine = workspacesBut(t, work, live.Dir)
			return err == nil && j.State == store.Running && j.Attempts == attempt && len(mine) == 1 && len(treeDirs(mine[0])) > 0
		}, "the job held, its trees on disk, for attempt %d", attempt)
		trees += len(treeDirs(mine[0]))
		left = append(left, mine[0])
		p.kill()
		p.logs.Reset()
		p.start()
	}
	// The sixth start finds the job past its attempts when its lease lapses, and fails it.
	waitFor(t, p, 30*time.Second, func() bool {
		j, err := st.Job(context.Background(), 1)
		return err == nil && j.State != store.Running
	}, "the job failed")
	j, _ := st.Job(context.Background(), 1)
	if j.State != store.Failed || j.Attempts != maxAttempts || !strings.Contains(j.Error, "stopped 5 times") {
		t.Errorf("job = state %s, %d attempts, error %q; want failed after %d attempts, abandoned", j.State, j.Attempts, j.Error, maxAttempts)
	}
	waitFor(t, p, 10*time.Second, func() bool { return answered(gh) }, "the pull request told")
	time.Sleep(1500 * time.Millisecond) // a lease more: nothing runs the job again
	if ws := workspacesBut(t, work, live.Dir); len(ws) != 1 || len(treeDirs(ws[0])) != 0 {
		t.Errorf("workspaces after the job failed: %v; want the running process's one, without trees (the job not run again)", ws)
	}
	if j, _ := st.Job(context.Background(), 1); j.Attempts != maxAttempts || llm.Hung() != 0 {
		t.Errorf("after failing: %d attempts, %d model calls; want %d and none", j.Attempts, llm.Hung(), maxAttempts)
	}
	var answers []string
	for _, c := range gh.CommentsOn("acme/shop#7") {
		if strings.HasPrefix(c.Body, pull.CannotDebateMarker) {
			answers = append(answers, c.Body)
		}
	}
	if len(answers) != 1 || !strings.Contains(answers[0], "could not review this pull request") ||
		!strings.Contains(answers[0], "the worker stopped 5 times while reviewing this pull request") || strings.Contains(answers[0], tmp) {
		t.Errorf("answers on the pull request: %q; want one saying it could not be reviewed and why", answers)
	}
	if runs := gh.Checks("acme/shop"); len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != "failure" ||
		!strings.Contains(runs[0].Summary, "stopped 5 times") {
		t.Errorf("check runs %+v; want the debate's one, concluded as failed with the reason", runs)
	}
	if resp, err := http.Get("http://" + p.addr + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("serve is not up after failing the job: %v", err)
	} else {
		resp.Body.Close()
	}
	// What the killed processes left is gone; the live replica's trees are not.
	if trees == 0 {
		t.Errorf("no trees were on disk when the processes were killed: the test did not exercise their removal")
	}
	for _, dir := range left {
		if _, err := os.Lstat(dir); !os.IsNotExist(err) {
			t.Errorf("the killed process's workspace %s is still there (%v)", dir, err)
		}
	}
	if _, err := os.Stat(liveTree); err != nil {
		t.Errorf("a live replica's trees were removed: %v", err)
	}
	t.Logf("%d kills, %d tree folders left by them and removed at the next start; the job failed after %d attempts", maxAttempts, trees, j.Attempts)
}

// answered reports whether acme/shop#7 has the answer that it could not be reviewed.
func answered(gh *githubtest.Server) bool {
	for _, c := range gh.CommentsOn("acme/shop#7") {
		if strings.HasPrefix(c.Body, pull.CannotDebateMarker) {
			return true
		}
	}
	return false
}

// waitFor polls cond until it holds, or fails t with what it waited for and serve's logs.
func waitFor(t *testing.T, p *serveProcess, d time.Duration, cond func() bool, what string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("waited %s for "+what+":\n%s", append(append([]any{d}, args...), p.logs.String())...)
}

// workspacesBut lists the workspace folders in work other than except.
func workspacesBut(t *testing.T, work, except string) []string {
	t.Helper()
	entries, err := os.ReadDir(work)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if dir := filepath.Join(work, e.Name()); e.IsDir() && dir != except {
			out = append(out, dir)
		}
	}
	return out
}

// treeDirs lists the tree folders (review.TempTrees) in a workspace.
func treeDirs(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "debatebot-trees-*"))
	return m
}

func writeTestFile(t *testing.T, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte("package main\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}
