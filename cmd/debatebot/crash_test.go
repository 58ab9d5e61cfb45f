package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
)

// serveProcess is `debatebot serve` running as a real process.
type serveProcess struct {
	t    *testing.T
	bin  string
	env  []string
	addr string
	cmd  *exec.Cmd
	logs syncBuffer
}

// syncBuffer is the process's stderr, written by exec's copier while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}

// built is the debatebot binary the process tests run, built once per test run.
var built struct {
	once sync.Once
	bin  string
	err  error
}

// buildBinary returns the debatebot binary, built on the first call into the directory TestMain
// made (binDir) and shared by every test after it: each test still runs a process of its own. It
// is built as the image builds it (Dockerfile: no symbol table or debug information, which also
// links faster) and without the race detector: the race detector checks the test process.
func buildBinary(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		bin := filepath.Join(binDir, "debatebot")
		out, err := exec.Command("go", "build", "-ldflags=-s -w", "-o", bin, ".").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %w\n%s", err, out)
			return
		}
		built.bin = bin
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func (p *serveProcess) start() {
	p.t.Helper()
	p.cmd = exec.Command(p.bin, "serve")
	p.cmd.Env = p.env
	p.cmd.Stderr = &p.logs
	if err := p.cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get("http://" + p.addr + "/healthz"); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.t.Fatalf("serve did not come up:\n%s", p.logs.String())
}

func (p *serveProcess) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	_ = p.cmd.Wait()
}

func (p *serveProcess) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	_ = p.cmd.Wait()
}

func (p *serveProcess) post(event, delivery string, body []byte) int {
	p.t.Helper()
	resp, err := http.DefaultClient.Do(signedRequest(p.addr, event, delivery, body))
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

func prOpened(t *testing.T, head string) []byte {
	return webhookFixture(t, "pull_request.opened.json", 7, func(p map[string]any) {
		p["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = head
	})
}

// TestKillDashNineMidDebateResumes kills `debatebot serve` with SIGKILL in the middle of a
// model-backed debate and starts it again: the debate continues from its last completed phase,
// no model call of a completed phase is made again, the comments are edited rather than
// duplicated, and the check run is concluded; whether each agent is asked on its own (killed
// once the rebuttals are checkpointed) or the model is asked as a panel: a deep debate, whose
// first round's call stops at the responses, killed once that round is checkpointed, while the
// next call is in flight; neither the call that seated the panel and opened nor the first
// round's is made again. (The evidence gathering is the checkpoint's first phase.)
func TestKillDashNineMidDebateResumes(t *testing.T) {
	t.Parallel() // a process of its own: waits on it overlap another test's
	bin := buildBinary(t)
	for _, mode := range []struct {
		name, config string
		phases       int
	}{
		{"panel", "depth: deep\n", 5},
		{"agent", "llm:\n  calls: agent\n", 3},
	} {
		t.Run(mode.name, func(t *testing.T) { killDashNineResumes(t, bin, mode.config, mode.phases) })
	}
}

func killDashNineResumes(t *testing.T, bin, config string, phases int) {
	gh := githubtest.New(t)
	putExample(t, gh, 7, "abc123")
	if config != "" {
		gh.Contents["acme/shop@main:.github/debatebot.yml"] = config
	}
	llm := llmtest.New(t, nil)
	llm.SetLatency(250 * time.Millisecond)
	db := filepath.Join(t.TempDir(), "debatebot.db")
	p := newServe(t, bin, appEnv(t, gh, db, llm.BaseURL(), "DEBATEBOT_JOB_LEASE=1s", "DEBATEBOT_LOG_LEVEL=debug"))
	p.start()
	if code := p.post("pull_request", "d-1", prOpened(t, "abc123")); code != http.StatusOK && code != http.StatusAccepted {
		t.Fatalf("delivery answered %d\n%s", code, p.logs.String())
	}
	// Kill once phases phases have been checkpointed.
	st, err := store.Open(context.Background(), "sqlite:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var debateID string
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if ids := checkpointed(st, phases); ids != "" {
			debateID = ids
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if debateID == "" {
		t.Fatalf("no checkpoint after %d phases:\n%s", phases, p.logs.String())
	}
	p.kill()
	before := roundCalls(llm)
	// The phases completed at the kill, each in its round.
	var done []string
	for _, ph := range checkpointOf(t, st, debateID).Timeline {
		if ph.Status == toulmin.StatusCompleted {
			done = append(done, fmt.Sprintf("%s@%d", ph.Phase, ph.Round))
		}
	}
	if len(done) < phases || before["opening_arguments@1"] == 0 {
		t.Fatalf("completed at the kill: %q, calls %v: want %d phases, the openings first", done, before, phases)
	}

	p.logs.Reset()
	p.start()
	defer p.stop()
	deadline = time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if d, err := st.Debate(context.Background(), debateID); err == nil && d.Decision != "" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	d, err := st.Debate(context.Background(), debateID)
	if err != nil || d.Decision == "" {
		t.Fatalf("the debate did not finish after the restart (%v):\n%s", err, p.logs.String())
	}
	after := roundCalls(llm)
	t.Logf("completed at the kill: %q; model calls by phase before the kill %v, after the restart %v", done, before, after)
	for _, phase := range done {
		if after[phase] != before[phase] {
			t.Errorf("%s: %d model calls before the kill, %d after the restart: a completed phase was asked again", phase, before[phase], after[phase])
		}
	}
	if phaseCalls(llm)["synthesis"] == 0 {
		t.Errorf("the resumed debate did not reach synthesis: %v", after)
	}
	llmtest.CheckAskedAs(t, llm.Requests(), config)
	checkPublishedOnce(t, gh, "the crash")
}

// checkpointed returns the unfinished debate that has at least phases phases checkpointed.
func checkpointed(st *store.Store, phases int) string {
	ds, err := st.Debates(context.Background())
	if err != nil {
		return ""
	}
	for _, d := range ds {
		if d.Phases >= phases && d.Decision == "" {
			return d.ID
		}
	}
	return ""
}

// phaseCalls counts the model calls that asked for each phase: a panel's call counts for every
// phase it covers (the seating call's openings; the last round's phases, the final arguments and
// the synthesis).
func phaseCalls(llm *llmtest.Server) map[string]int {
	out := map[string]int{}
	for _, r := range llm.Requests() {
		for _, phase := range llmtest.Phases(r) {
			out[phase]++
		}
	}
	return out
}

var callRoundRe = regexp.MustCompile(`(?m)^# (?:Phase|This call): .*\(round (\d+)\)$`)

// roundCalls counts the model calls as phaseCalls does, each phase under its round
// ("rebuttal@2"), read from the call's instruction (an agent's phase, or what a panel's call
// covers).
func roundCalls(llm *llmtest.Server) map[string]int {
	out := map[string]int{}
	for _, r := range llm.Requests() {
		round := "?"
		for i := len(r.Messages) - 1; i >= 0; i-- {
			if m := callRoundRe.FindStringSubmatch(r.Messages[i].Content); m != nil && r.Messages[i].Role == "user" {
				round = m[1]
				break
			}
		}
		for _, phase := range llmtest.Phases(r) {
			out[phase+"@"+round]++
		}
	}
	return out
}

// TestBurstWithKillAndRestart sends 1,000 deliveries (five for each of 200 pull requests) to a
// server that is killed with SIGKILL halfway and started again; deliveries that were not
// acknowledged are redelivered, as GitHub's redelivery would. Every acknowledged delivery must
// end as one debate or one dedupe, and no pull request gets a comment twice.
func TestBurstWithKillAndRestart(t *testing.T) {
	t.Parallel() // a process of its own: waits on it overlap another test's
	bin := buildBinary(t)
	gh := githubtest.New(t)
	diff, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	const prs, perPR = 200, 5
	for n := 1; n <= prs; n++ {
		gh.PRs[fmt.Sprintf("acme/shop#%d", n)] = &githubtest.PR{Title: "Export", BaseRef: "main", HeadRef: "x", HeadSHA: fmt.Sprintf("h%d", n), Diff: string(diff)}
	}
	db := filepath.Join(t.TempDir(), "debatebot.db")
	// 200 pull requests of one repository within a minute: over any hourly budget a repository
	// would have, which this test of durability lifts (0: no limit).
	p := newServe(t, bin, appEnv(t, gh, db, "", "DEBATEBOT_JOB_LEASE=1s", "DEBATEBOT_WORKERS=4", "DEBATEBOT_REPO_DEBATES_PER_HOUR=0"))
	p.start()
	type delivery struct {
		id   string
		body []byte
	}
	var all []delivery
	for i := 0; i < prs*perPR; i++ {
		n := i%prs + 1
		body := prOpened(t, fmt.Sprintf("h%d", n))
		var m map[string]any
		_ = json.Unmarshal(body, &m)
		m["pull_request"].(map[string]any)["number"] = n
		body, _ = json.Marshal(m)
		all = append(all, delivery{fmt.Sprintf("burst-%d", i), body})
	}
	acked := map[string]bool{}
	send := func(ds []delivery) (failed []delivery) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		sem := make(chan struct{}, 20)
		for _, d := range ds {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				code := p.post("pull_request", d.id, d.body)
				mu.Lock()
				defer mu.Unlock()
				if code >= 200 && code < 300 {
					acked[d.id] = true
				} else {
					failed = append(failed, d)
				}
			}()
		}
		wg.Wait()
		return failed
	}
	// First half, then SIGKILL while debates run, a restart, the second half, and redelivery of
	// whatever was not acknowledged.
	failed := send(all[:len(all)/2])
	p.kill()
	failed = append(failed, send(all[len(all)/2:len(all)/2+50])...) // sent while the server is down
	p.start()
	defer p.stop()
	failed = append(failed, send(all[len(all)/2+50:])...)
	redelivered := len(failed)
	if still := send(failed); len(still) > 0 {
		t.Fatalf("%d deliveries still failed after the restart", len(still))
	}

	st, err := store.Open(context.Background(), "sqlite:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	deadline := time.Now().Add(120 * time.Second)
	var counts map[string]int
	for time.Now().Before(deadline) {
		counts, _ = st.Counts(context.Background())
		if counts[store.Queued] == 0 && counts[store.Running] == 0 && counts[store.Done] >= prs {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	lost := 0
	for id := range acked {
		if ok, err := st.Delivered(context.Background(), id); err != nil || !ok {
			lost++
		}
	}
	duplicates := 0
	for n := 1; n <= prs; n++ {
		var tr, dec int
		for _, c := range gh.CommentsOn(fmt.Sprintf("acme/shop#%d", n)) {
			switch {
			case strings.HasPrefix(c.Body, render.TranscriptMarker):
				tr++
			case strings.HasPrefix(c.Body, render.DecisionMarker):
				dec++
			}
		}
		if tr != 1 || dec != 1 {
			duplicates++
		}
	}
	t.Logf("1,000 deliveries: %d acknowledged (%d redelivered after failing), %d debated, %d deduplicated, %d lost, %d pull requests without exactly one transcript and one decision comment",
		len(acked), redelivered, counts[store.Done], len(acked)-counts[store.Done], lost, duplicates)
	if len(acked) != prs*perPR || counts[store.Done] != prs || counts[store.Failed] != 0 || lost != 0 || duplicates != 0 {
		t.Errorf("want all 1,000 acknowledged, %d debated, none failed, none lost, no duplicate comments; job states %v", prs, counts)
	}
}

// A database that is down when serve starts is a clear one-line error, not a server that
// acknowledges deliveries it cannot keep.
func TestServeWithDatabaseDown(t *testing.T) {
	gh := githubtest.New(t)
	env := map[string]string{
		"GITHUB_V3_API_URL": gh.URL + "/", "GITHUB_APP_INTEGRATION_ID": "1", "GITHUB_APP_WEBHOOK_SECRET": "s3cret",
		"GITHUB_APP_PRIVATE_KEY": testAppKey(t),
		"DEBATEBOT_DATABASE_URL": "postgres://debatebot:hunter2@127.0.0.1:1/debatebot?sslmode=disable&connect_timeout=2",
		"DEBATEBOT_ADDR":         freeAddr(t),
		"DEBATEBOT_LOG_LEVEL":    "error",
	}
	code, _, errOut := runCmd(t, "", env, "serve")
	if code != exitError || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "database postgres://***@127.0.0.1:1/debatebot") ||
		!strings.Contains(errOut, "is unavailable") || strings.Contains(errOut, "hunter2") {
		t.Errorf("serve with the database down: exit %d, stderr %q", code, errOut)
	}
}
