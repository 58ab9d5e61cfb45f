package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/store"
)

// sha is a 40-hex commit id made of one digit, for readable tests.
func sha(d byte) string { return strings.Repeat(string(d), 40) }

// ciFixture loads a constructed CI payload (testdata/webhooks, see its README) and points it at
// acme/shop#7 with head and the given run id, conclusion and time.
func ciFixture(t testing.TB, name, key string, id int64, head, conclusion string, at time.Time, attempt int) []byte {
	t.Helper()
	p := githubtest.Payload(t, filepath.Join("testdata", "webhooks", name))
	p["installation"] = map[string]any{"id": 42}
	run := p[key].(map[string]any)
	run["id"], run["head_sha"], run["conclusion"] = id, head, conclusion
	run["updated_at"], run["completed_at"] = at.Format(time.RFC3339), at.Format(time.RFC3339)
	if attempt > 0 {
		run["run_attempt"] = attempt
	}
	for _, pr := range run["pull_requests"].([]any) {
		pr := pr.(map[string]any)
		pr["number"] = 7
		pr["head"].(map[string]any)["sha"] = head
	}
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// goTestLog is a job log as GitHub Actions serves it: timestamps, ANSI colour, the runner's
// closing error; the compiler's error names the failing file and line.
func goTestLog(line int) string {
	ts := "2026-01-29T14:30:0%dZ "
	return strings.Join([]string{
		fmt.Sprintf(ts, 0) + "##[group]Run go test ./...",
		fmt.Sprintf(ts, 1) + "ok  \tgithub.com/acme/shop/cart\t0.012s",
		fmt.Sprintf(ts, 2) + "# github.com/acme/shop/auth",
		fmt.Sprintf(ts, 2) + fmt.Sprintf("\x1b[31mauth/auth.go:%d:3: undefined: NewToken\x1b[0m", line),
		fmt.Sprintf(ts, 3) + "FAIL\tgithub.com/acme/shop/auth [build failed]",
		fmt.Sprintf(ts, 4) + "##[error]Process completed with exit code 1.",
	}, "\n")
}

// failingRun makes workflow run id fail on GitHub: its job fails in the step "Run go test" with
// the log above.
func failingRun(gh *githubtest.Server, id int64, line int) {
	job := id + 1000
	gh.SetJobs("acme/shop", id, []map[string]any{
		{"id": job - 500, "run_id": id, "name": "lint", "status": "completed", "conclusion": "success", "steps": []any{}},
		{"id": job, "run_id": id, "name": "test", "status": "completed", "conclusion": "failure", "steps": []any{
			map[string]any{"name": "Set up job", "number": 1, "status": "completed", "conclusion": "success"},
			map[string]any{"name": "Run go test", "number": 2, "status": "completed", "conclusion": "failure"},
		}},
	})
	gh.SetJobLog("acme/shop", job, goTestLog(line))
}

func (a *app) failureComments() []githubtest.Comment {
	return a.comments("<!-- debatebot:failure-")
}

func (a *app) labels() []string {
	return a.gh.LabelsOn("acme/shop#7")
}

func (a *app) deliver(event, delivery string, body []byte) {
	a.t.Helper()
	if code := a.post(event, delivery, body, secret); code != http.StatusOK && code != http.StatusAccepted {
		a.t.Fatalf("%s delivery %s answered %d", event, delivery, code)
	}
	a.srv.Queue.Wait()
}

func (a *app) task(name string) *store.FailureTask {
	a.t.Helper()
	_, id := ciTask(&CIRun{Name: name}, review.PullRequest{Owner: "acme", Repo: "shop", Number: 7})
	task, err := a.srv.Store.FailureTaskOf(context.Background(), "acme/shop#7", id)
	if err != nil {
		a.t.Fatalf("task %q: %v", name, err)
	}
	return task
}

// logCalls prints the requests the App made to GitHub from index from on, for the record.
func (a *app) logCalls(title string, from int) int {
	a.t.Helper()
	calls := a.gh.Calls()
	var b strings.Builder
	for _, c := range calls[from:] {
		fmt.Fprintf(&b, "  %-6s %s", c.Method, c.Path)
		if c.Query != "" {
			fmt.Fprintf(&b, "?%s", c.Query)
		}
		fmt.Fprintf(&b, "  [%s]\n", c.Operation)
	}
	a.t.Logf("%s: %d requests\n%s", title, len(calls)-from, b.String())
	return len(calls)
}

// TestFailureDebateEndToEnd is the scenario of seed 000 against the fakes: two failing runs with
// the same fingerprint hold one failure debate (one comment); a third escalates without another
// debate (label debate-escalated, the same comment edited); a success resets the count.
func TestFailureDebateEndToEnd(t *testing.T) {
	a := newApp(t)
	gh := a.gh
	t0 := time.Date(2026, 1, 29, 14, 30, 0, 0, time.UTC)
	gh.SetHead("acme/shop#7", sha('1'))
	// Between the first two heads only the README changed: an attempt that missed the failing file.
	gh.Compares["acme/shop@"+sha('1')+"..."+sha('2')] = []map[string]any{{"filename": "README.md", "status": "modified"}}
	gh.Compares["acme/shop@"+sha('2')+"..."+sha('3')] = []map[string]any{{"filename": "docs/auth.md", "status": "modified"}}

	// 1. The first failure is recorded; nothing is published.
	failingRun(gh, 101, 12)
	a.deliver("workflow_run", "ci-1", ciFixture(t, "workflow_run.completed.json", "workflow_run", 101, sha('1'), "failure", t0, 1))
	n := a.logCalls("first failure (attempt 1)", 0)
	if c := a.failureComments(); len(c) != 0 {
		t.Fatalf("one failure published %d comments", len(c))
	}
	task := a.task("CI")
	if task.Streak != 1 || task.Fingerprint != "undefined newtoken" || !slices.Equal(task.Files, []string{"auth/auth.go"}) {
		t.Fatalf("after one failure: %+v", task)
	}
	// A redelivery of the same run records nothing.
	a.deliver("workflow_run", "ci-1-again", ciFixture(t, "workflow_run.completed.json", "workflow_run", 101, sha('1'), "failure", t0, 1))
	if task := a.task("CI"); task.Streak != 1 {
		t.Fatalf("a redelivered failure counted again: %+v", task)
	}
	n = a.logCalls("the same run redelivered", n)

	// 2. The second failure, same fingerprint at another line, after an unrelated push: one debate.
	gh.SetHead("acme/shop#7", sha('2'))
	failingRun(gh, 102, 14)
	a.deliver("workflow_run", "ci-2", ciFixture(t, "workflow_run.completed.json", "workflow_run", 102, sha('2'), "failure", t0.Add(10*time.Minute), 1))
	n = a.logCalls("second failure (attempt 2): the failure debate", n)
	c := a.failureComments()
	if len(c) != 1 {
		t.Fatalf("the second failure published %d failure comments, want 1", len(c))
	}
	body := c[0].Body
	t.Logf("failure debate comment:\n%s", body)
	for _, want := range []string{"## Failure debate: CI on acme/shop#7 → **PIVOT**", "RESOLUTION PIVOT", "NEXT_ATTEMPT_LIMIT 1", "`undefined newtoken`",
		"DIFF_FROM_PREVIOUS: Attempt 2 changed README.md, not where the error is.", "BLIND_SPOT: the changes (README.md) do not touch where the error is (auth/auth.go)",
		"auth/auth.go:14:3: undefined: NewToken"} {
		if !strings.Contains(body, want) {
			t.Errorf("the debate comment lacks %q", want)
		}
	}
	if strings.Contains(body, "\x1b") || strings.Contains(body, "2026-01-29T14:30:0") {
		t.Error("the log lines keep their colour codes or timestamps")
	}
	if slices.Contains(a.labels(), publish.EscalationLabel) {
		t.Error("a PIVOT must not escalate")
	}
	for job, count := range map[int64]int{1101: 1, 1102: 1} {
		if got := gh.LogDownloads()[job]; got != count {
			t.Errorf("job %d's log was downloaded %d times without the token, want %d", job, got, count)
		}
	}

	// 3. The third failure after the debate: escalated, no second debate, the comment edited.
	gh.SetHead("acme/shop#7", sha('3'))
	failingRun(gh, 103, 15)
	a.deliver("workflow_run", "ci-3", ciFixture(t, "workflow_run.completed.json", "workflow_run", 103, sha('3'), "failure", t0.Add(20*time.Minute), 1))
	n = a.logCalls("third failure (attempt 3): escalation without a debate", n)
	c2 := a.failureComments()
	if len(c2) != 1 || c2[0].ID != c[0].ID {
		t.Fatalf("after the third failure: %d failure comments (want the same one edited)", len(c2))
	}
	if !strings.Contains(c2[0].Body, "**Escalated to a human** after attempt 3") || strings.Count(c2[0].Body, "## Failure debate") != 1 {
		t.Errorf("the escalation is not on the comment, or a second debate was held:\n%s", c2[0].Body)
	}
	if !slices.Contains(a.labels(), publish.EscalationLabel) {
		t.Errorf("labels %v, want %s", a.labels(), publish.EscalationLabel)
	}
	// A fourth failure changes nothing more.
	failingRun(gh, 104, 16)
	a.deliver("workflow_run", "ci-4", ciFixture(t, "workflow_run.completed.json", "workflow_run", 104, sha('3'), "failure", t0.Add(25*time.Minute), 1))
	if c3 := a.failureComments(); len(c3) != 1 || c3[0].Body != c2[0].Body {
		t.Error("a failure after the escalation changed the comment")
	}
	n = a.logCalls("fourth failure (already escalated)", n)

	// 4. A success resets the count and says so on the comment.
	gh.SetHead("acme/shop#7", sha('4'))
	a.deliver("workflow_run", "ci-5", ciFixture(t, "workflow_run.completed.json", "workflow_run", 105, sha('4'), "success", t0.Add(30*time.Minute), 1))
	n = a.logCalls("success: reset", n)
	if task := a.task("CI"); task.Streak != 0 || task.Debated != 0 || task.Escalated {
		t.Errorf("after a success: %+v", task)
	}
	if c := a.failureComments(); len(c) != 1 || !strings.Contains(c[0].Body, "**Passed** on 4444444") {
		t.Errorf("the success is not noted on the comment")
	}
	// The next failure starts again at attempt 1: nothing published.
	failingRun(gh, 106, 12)
	a.deliver("workflow_run", "ci-6", ciFixture(t, "workflow_run.completed.json", "workflow_run", 106, sha('4'), "failure", t0.Add(40*time.Minute), 1))
	if task := a.task("CI"); task.Streak != 1 {
		t.Errorf("after a reset the next failure is attempt 1: %+v", task)
	}
	a.logCalls("a failure after the reset (attempt 1 again)", n)

	st, err := a.srv.Store.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d := st.Dialectic; d.ByType["failure"]["PIVOT"] != 1 || d.ByType["escalation"]["ESCALATE"] != 1 || d.WithOutcome != 1 || d.Helped != 0 {
		t.Errorf("dialectic stats %+v", d)
	}
	metrics := a.get("/metrics")
	for _, want := range []string{`debatebot_dialectic_debates{resolution="PIVOT",type="failure"} 1`, `debatebot_dialectic_debates{resolution="ESCALATE",type="escalation"} 1`, "debatebot_dialectic_helped_rate 0"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	a.checkCalls()
}

func (a *app) get(path string) string {
	a.t.Helper()
	resp, err := http.Get(a.url + path)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	return string(b)
}

// A check run's failure annotations are its error; the same error after a change to the failing
// file retries, and the next success on a new commit counts as helped.
func TestCheckRunFailureRetriesAndHelps(t *testing.T) {
	a := newApp(t)
	gh := a.gh
	t0 := time.Date(2026, 1, 29, 14, 30, 0, 0, time.UTC)
	gh.SetHead("acme/shop#7", sha('1'))
	gh.Compares["acme/shop@"+sha('1')+"..."+sha('2')] = []map[string]any{{"filename": "src/app.ts", "status": "modified"}}
	lint := func(head string, line int) int64 {
		return gh.AddCheckRun("acme/shop", githubtest.CheckRun{Name: "Octocoders-linter", HeadSHA: head, Status: "completed", Conclusion: "failure",
			Annotations: []githubtest.Annotation{
				{Path: "src/app.ts", StartLine: line, EndLine: line, Level: "warning", Message: "Unexpected console statement."},
				{Path: "src/app.ts", StartLine: line + 1, EndLine: line + 1, Level: "failure", Message: fmt.Sprintf("TS2345: Argument of type 'string' is not assignable to parameter of type 'number' at line %d", line+1)},
			}})
	}
	id1 := lint(sha('1'), 10)
	a.deliver("check_run", "cr-1", ciFixture(t, "check_run.completed.json", "check_run", id1, sha('1'), "failure", t0, 0))
	gh.SetHead("acme/shop#7", sha('2'))
	id2 := lint(sha('2'), 20)
	a.deliver("check_run", "cr-2", ciFixture(t, "check_run.completed.json", "check_run", id2, sha('2'), "failure", t0.Add(time.Minute), 0))
	c := a.failureComments()
	if len(c) != 1 || !strings.Contains(c[0].Body, "→ **RETRY**") || !strings.Contains(c[0].Body, "`ts2345 argument of type string is not assignable to param`") {
		t.Fatalf("failure comments %d:\n%v", len(c), c)
	}
	gh.SetHead("acme/shop#7", sha('3'))
	a.deliver("check_run", "cr-3", ciFixture(t, "check_run.completed.json", "check_run", id2+100, sha('3'), "success", t0.Add(2*time.Minute), 0))
	st, err := a.srv.Store.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d := st.Dialectic; d.ByType["failure"]["RETRY"] != 1 || d.Helped != 1 || d.HelpedRate != 1 || d.FalsePositiveRate != 0 {
		t.Errorf("dialectic stats %+v", d)
	}
	// GitHub Actions' own check runs are left to workflow_run, and this App's to itself.
	n := len(gh.Calls())
	for i, slug := range []string{ActionsApp, "debatebot"} {
		body := ciFixture(t, "check_run.completed.json", "check_run", 9000+int64(i), sha('3'), "failure", t0, 0)
		var p map[string]any
		_ = json.Unmarshal(body, &p)
		p["check_run"].(map[string]any)["app"].(map[string]any)["slug"] = slug
		body, _ = json.Marshal(p)
		a.deliver("check_run", fmt.Sprintf("cr-app-%d", i), body)
	}
	if len(gh.Calls()) != n {
		t.Errorf("check runs of GitHub Actions or of this App made %d requests", len(gh.Calls())-n)
	}
	a.checkCalls()
}

// A push to the failing file is the next attempt, not a reset: the same error after it is the
// loop seed 000's failure debate is for, and it retries. A push that changes CI's environment
// resets the count; a push elsewhere does not; /debate fresh does, for a user with
// command_permission only.
func TestFailureCountResets(t *testing.T) {
	a := newApp(t)
	gh := a.gh
	t0 := time.Date(2026, 1, 29, 14, 30, 0, 0, time.UTC)
	push := func(delivery string, before, after byte, files ...string) {
		t.Helper()
		gh.SetHead("acme/shop#7", sha(after))
		var fs []map[string]any
		for _, f := range files {
			fs = append(fs, map[string]any{"filename": f, "status": "modified"})
		}
		gh.Compares["acme/shop@"+sha(before)+"..."+sha(after)] = fs
		a.deliver("pull_request", delivery, fixture(t, "pull_request.synchronize.json", func(p map[string]any) {
			p["before"], p["after"] = sha(before), sha(after)
			p["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = sha(after)
		}))
	}
	gh.SetHead("acme/shop#7", sha('1'))
	failingRun(gh, 201, 12)
	a.deliver("workflow_run", "r-1", ciFixture(t, "workflow_run.completed.json", "workflow_run", 201, sha('1'), "failure", t0, 1))

	// A push touching auth/auth.go, where the error is: an attempt at it.
	push("push-1", '1', '2', "auth/auth.go")
	if task := a.task("CI"); task.Streak != 1 {
		t.Fatalf("a push to the failing file reset the count: %+v", task)
	}
	failingRun(gh, 202, 13)
	a.deliver("workflow_run", "r-2", ciFixture(t, "workflow_run.completed.json", "workflow_run", 202, sha('2'), "failure", t0.Add(time.Minute), 1))
	if task, c := a.task("CI"), a.failureComments(); task.Streak != 2 || len(c) != 1 || !strings.Contains(c[0].Body, "→ **RETRY**") {
		t.Fatalf("the same error after a change to the failing file: %+v, %d failure comments %v", task, len(c), c)
	}

	// A push changing the workflow or a dependency manifest changes CI's environment.
	push("push-2", '2', '3', "auth/auth_test.go", "go.sum")
	if task := a.task("CI"); task.Streak != 0 || task.Debated != 0 {
		t.Fatalf("a push changing go.sum did not reset: %+v", task)
	}
	failingRun(gh, 203, 13)
	a.deliver("workflow_run", "r-3", ciFixture(t, "workflow_run.completed.json", "workflow_run", 203, sha('3'), "failure", t0.Add(2*time.Minute), 1))
	if task, c := a.task("CI"), a.failureComments(); task.Streak != 1 || len(c) != 1 {
		t.Fatalf("after the reset: %+v, %d failure comments", task, len(c))
	}

	// A push elsewhere resets nothing.
	push("push-3", '3', '4', "README.md")
	if task := a.task("CI"); task.Streak != 1 {
		t.Fatalf("a push elsewhere reset the count: %+v", task)
	}

	// /debate fresh: refused to a reader, done for a writer.
	a.deliver("issue_comment", "fresh-1", commentFixture(t, "mallory", "/debate fresh"))
	if task := a.task("CI"); task.Streak != 1 || len(a.comments("@mallory: `/debate fresh` needs write permission")) != 1 {
		t.Fatalf("a reader's /debate fresh: %+v", task)
	}
	a.deliver("issue_comment", "fresh-2", commentFixture(t, "alice", "/debate fresh"))
	if task := a.task("CI"); task.Streak != 0 || len(a.comments("@alice started fresh: the failure counts of `CI on acme/shop#7` are reset.")) != 1 {
		t.Fatalf("/debate fresh: %+v", task)
	}
	a.checkCalls()
}

// A failure older than a day does not continue the streak unless nothing changed since.
func TestStaleFailure(t *testing.T) {
	prev := store.FailureTask{Streak: 1, Fingerprint: "x", LastAt: time.Unix(0, 0), LastHead: "a"}
	if Consecutive(prev, &store.Failure{Fingerprint: "x", At: time.Unix(0, 0).Add(25 * time.Hour), HeadSHA: "b"}) {
		t.Error("a failure 25 hours later on another commit is not consecutive")
	}
	if !Consecutive(prev, &store.Failure{Fingerprint: "x", At: time.Unix(0, 0).Add(25 * time.Hour), HeadSHA: "a"}) {
		t.Error("a failure 25 hours later on the same commit is consecutive (nothing changed)")
	}
	if !Consecutive(prev, &store.Failure{Fingerprint: "x", At: time.Unix(0, 0).Add(time.Hour), HeadSHA: "b"}) {
		t.Error("a failure an hour later is consecutive")
	}
	if Consecutive(prev, &store.Failure{Fingerprint: "y", At: time.Unix(0, 0).Add(time.Hour), HeadSHA: "a"}) {
		t.Error("another error is no streak")
	}
}

// An infrastructure failure (a timeout) escalates at once, by the rules.
func TestInfrastructureFailureEscalates(t *testing.T) {
	a := newApp(t)
	gh := a.gh
	t0 := time.Date(2026, 1, 29, 14, 30, 0, 0, time.UTC)
	gh.SetHead("acme/shop#7", sha('1'))
	for i, id := range []int64{301, 302} {
		gh.SetJobs("acme/shop", id, []map[string]any{{"id": id + 1000, "name": "e2e", "conclusion": "failure", "steps": []any{map[string]any{"name": "npm ci", "conclusion": "failure"}}}})
		gh.SetJobLog("acme/shop", id+1000, "2026-01-29T14:30:00Z npm ERR! code ENOSPC\n2026-01-29T14:30:00Z ##[error]ENOSPC: no space left on device, write '/home/runner/.npm/_cacache/tmp/"+fmt.Sprint(id)+"'\n")
		a.deliver("workflow_run", fmt.Sprintf("i-%d", i), ciFixture(t, "workflow_run.completed.json", "workflow_run", id, sha('1'), "failure", t0.Add(time.Duration(i)*time.Minute), i+1))
	}
	c := a.failureComments()
	if len(c) != 1 || !strings.Contains(c[0].Body, "→ **ESCALATE**") || !strings.Contains(c[0].Body, "`npm err code enospc`") || !slices.Contains(a.labels(), publish.EscalationLabel) {
		t.Fatalf("an infrastructure failure must escalate: %v labels %v", c, a.labels())
	}
}

func TestPlanCommand(t *testing.T) {
	a := newApp(t)
	a.deliver("issue_comment", "plan-1", commentFixture(t, "alice", "/debate plan Drop the legacy users table\nand its indexes stakes=high"))
	c := a.comments("<!-- debatebot:plan-")
	if len(c) != 1 {
		t.Fatalf("plan comments: %d", len(c))
	}
	t.Logf("planning debate comment:\n%s", c[0].Body)
	for _, want := range []string{"## Planning debate → **MODIFY**", "Proposal (stakes: high): Drop the legacy users table and its indexes", "MODIFICATIONS [Take a backup", "Asked by @alice."} {
		if !strings.Contains(c[0].Body, want) {
			t.Errorf("the plan comment lacks %q", want)
		}
	}
	a.deliver("issue_comment", "plan-2", commentFixture(t, "mallory", "/debate plan Delete production"))
	if len(a.comments("@mallory: `/debate plan` needs write permission")) != 1 || len(a.comments("<!-- debatebot:plan-")) != 1 {
		t.Error("a reader's /debate plan must be refused")
	}
	a.deliver("issue_comment", "plan-3", commentFixture(t, "alice", "/debate plan stakes=high"))
	if len(a.comments("@alice: `/debate plan` needs a proposal")) != 1 {
		t.Error("an empty proposal must be answered with the usage")
	}
	st, err := a.srv.Store.Stats(context.Background())
	if err != nil || st.Dialectic.ByType["planning"]["MODIFY"] != 1 {
		t.Errorf("planning stats %+v %v", st.Dialectic, err)
	}
	a.checkCalls()
}

func TestCodeScanningAlertOnPullRequestRerunsItsDebate(t *testing.T) {
	a := newApp(t)
	body := ciAlertFixture(t, "code_scanning_alert.created.json", func(p map[string]any) { p["ref"] = "refs/pull/7/merge" })
	a.deliver("code_scanning_alert", "alert-1", body)
	tr, dec := a.comments(render.TranscriptMarker), a.comments(render.DecisionMarker)
	if len(tr) != 1 || len(dec) != 1 {
		t.Fatalf("transcript %d, decision %d comments", len(tr), len(dec))
	}
	if !strings.Contains(tr[0].Body, "CodeQL alert #3 (go/sql-injection)") || !strings.Contains(dec[0].Body, "trigger: code_scanning_alert.created") {
		t.Errorf("the alert is not evidence of the debate:\n%s", tr[0].Body)
	}
	if whole := a.wholeDebate(); !strings.Contains(whole, "| security-alert | security | CodeQL alert #3 (go/sql-injection): This query depends on a user-provided value. |") {
		t.Errorf("the alert is not in the evidence table of the debate:\n%s", whole)
	}
	// An alert fixed, or on another branch, starts nothing.
	n := len(a.gh.Calls())
	a.deliver("code_scanning_alert", "alert-2", ciAlertFixture(t, "code_scanning_alert.created.json", func(p map[string]any) { p["action"] = "fixed"; p["ref"] = "refs/pull/7/merge" }))
	a.deliver("code_scanning_alert", "alert-3", ciAlertFixture(t, "code_scanning_alert.created.json", func(p map[string]any) { p["ref"] = "refs/heads/feature" }))
	if len(a.gh.Calls()) != n {
		t.Errorf("a fixed alert or one on another branch made %d requests", len(a.gh.Calls())-n)
	}
	a.checkCalls()
}

func TestDependabotAlertOpensAnIssueWhenConfigured(t *testing.T) {
	a := newApp(t)
	body := ciAlertFixture(t, "dependabot_alert.created.json", alertIn("private"))
	// Without alerts: issue, nothing.
	a.deliver("dependabot_alert", "dep-1", body)
	if n := len(a.gh.IssuesOpened()); n != 0 {
		t.Fatalf("issues opened without alerts: issue: %d", n)
	}
	a.gh.Contents["acme/shop@:.github/debatebot.yml"] = "alerts: issue\n"
	a.deliver("dependabot_alert", "dep-2", body)
	a.deliver("dependabot_alert", "dep-3", body) // the same alert again: the same issue
	issues := a.gh.IssuesOpened()
	if len(issues) != 1 {
		t.Fatalf("issues opened: %d, want 1", len(issues))
	}
	var key string
	for k, is := range issues {
		key = k
		if is.Title != "Security alerts: Dependabot npm lodash" || !strings.Contains(is.Body, "GHSA-35jh-r3h4-6jhm / CVE-2021-23337") {
			t.Errorf("issue title %q", is.Title)
		}
	}
	var debated bool
	for _, c := range a.gh.CommentsOn(key) {
		if strings.Contains(c.Body, "lodash") && strings.HasPrefix(c.Body, render.TranscriptMarker) {
			debated = true
		}
	}
	if !debated {
		t.Errorf("the alert's issue %s was not debated with the alert as evidence: %v", key, a.gh.CommentsOn(key))
	}

	// The alert is fixed: its issue is closed as completed, with a comment saying why; a
	// redelivery changes nothing more.
	fixed := ciAlertFixture(t, "dependabot_alert.created.json", func(p map[string]any) { alertIn("private")(p); p["action"] = "fixed" })
	a.deliver("dependabot_alert", "dep-4", fixed)
	a.deliver("dependabot_alert", "dep-5", fixed)
	if is := a.gh.IssuesOpened()[key]; is.State != "closed" || is.StateReason != "completed" {
		t.Errorf("the fixed alert's issue: %+v", is)
	}
	var closing int
	for _, c := range a.gh.CommentsOn(key) {
		if strings.Contains(c.Body, "GitHub reports the alert fixed (`dependabot_alert.fixed`), so this issue is closed as completed.") {
			closing++
		}
	}
	if closing != 1 {
		t.Errorf("%d closing comments on %s, want 1: %v", closing, key, a.gh.CommentsOn(key))
	}
	// Dismissed, it would be closed as not planned; an alert that never had an issue costs no
	// request.
	n := len(a.gh.Calls())
	a.deliver("dependabot_alert", "dep-6", ciAlertFixture(t, "dependabot_alert.created.json", func(p map[string]any) {
		alertIn("private")(p)
		p["action"] = "dismissed"
		p["alert"].(map[string]any)["number"] = 8
	}))
	if len(a.gh.Calls()) != n {
		t.Errorf("closing an alert without an issue made %d requests", len(a.gh.Calls())-n)
	}
	a.deliver("dependabot_alert", "dep-7", ciAlertFixture(t, "dependabot_alert.created.json", func(p map[string]any) { alertIn("private")(p); p["action"] = "dismissed" }))
	if is := a.gh.IssuesOpened()[key]; is.State != "closed" || is.StateReason != "not_planned" {
		t.Errorf("the dismissed alert's issue: %+v", is)
	}
	a.checkCalls()
}

func ciAlertFixture(t testing.TB, name string, edit func(map[string]any)) []byte {
	t.Helper()
	p := githubtest.Payload(t, filepath.Join("testdata", "webhooks", name))
	p["installation"] = map[string]any{"id": 42}
	if edit != nil {
		edit(p)
	}
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// With a model configured, the failure debate's advocate and critic are the model's, one call
// each, in order; a substantial attempt with a blind spot is a case the seed's rules leave open,
// so a third call, the orchestrator's, judges it.
func TestFailureDebateWithModel(t *testing.T) {
	llm := llmtest.New(t, func(_ int, r *llmtest.Request) llmtest.Response {
		switch r.ResponseFormat.JSONSchema.Name {
		case "failure_advocate":
			return llmtest.Response{Content: `{"diagnosis":"the test imports a renamed constructor","fix":"call auth.NewSigner","diff_from_previous":"replaces the constructor instead of editing docs","substantial":true}`}
		case "failure_critic":
			return llmtest.Response{Content: `{"pattern":"a renamed symbol breaks the build","blind_spot":"the generated mocks still use NewToken","should_escalate":false}`}
		case "failure_synthesis":
			return llmtest.Response{Content: `{"resolution":"RETRY","rationale":"The constructor change is substantial; regenerating the mocks closes the blind spot.","next_approach":"call auth.NewSigner and run go generate for the mocks","modifications":[]}`}
		}
		return llmtest.Response{Status: 400, ErrorMessage: "unexpected " + r.ResponseFormat.JSONSchema.Name}
	})
	a := newAppWith(t, func(c *config.Server) { c.OpenAIKey, c.OpenAIBaseURL, c.Model = "sk-test", llm.BaseURL(), "gpt-test" })
	t0 := time.Date(2026, 1, 29, 14, 30, 0, 0, time.UTC)
	a.gh.SetHead("acme/shop#7", sha('1'))
	for i, id := range []int64{401, 402} {
		failingRun(a.gh, id, 12+i)
		a.deliver("workflow_run", fmt.Sprintf("m-%d", i), ciFixture(t, "workflow_run.completed.json", "workflow_run", id, sha('1'), "failure", t0.Add(time.Duration(i)*time.Minute), i+1))
	}
	var names []string
	for _, r := range llm.Requests() {
		names = append(names, r.ResponseFormat.JSONSchema.Name)
	}
	if !slices.Equal(names, []string{"failure_advocate", "failure_critic", "failure_synthesis"}) {
		t.Fatalf("model calls %v", names)
	}
	c := a.failureComments()
	if len(c) != 1 || !strings.Contains(c[0].Body, "→ **RETRY**") || !strings.Contains(c[0].Body, "**Critic** (model gpt-test)") ||
		!strings.Contains(c[0].Body, "BLIND_SPOT: the generated mocks still use NewToken") || !strings.Contains(c[0].Body, "Model calls: 3 (") ||
		!strings.Contains(c[0].Body, "NEXT_APPROACH call auth.NewSigner and run go generate for the mocks.") ||
		!strings.Contains(c[0].Body, "left this open between RETRY and PIVOT; the orchestrator (model gpt-test) judged it") {
		t.Fatalf("failure comments: %v", c)
	}
	if !strings.Contains(a.get("/metrics"), `debatebot_tokens_total{kind="prompt"}`) {
		t.Error("the model's tokens are not in /metrics")
	}
}

// A failure debate whose comment cannot be posted fails its job; the retry publishes the stored
// debate and holds no second one.
func TestFailureDebatePublishedOnRetry(t *testing.T) {
	a := newApp(t)
	t0 := time.Date(2026, 1, 29, 14, 30, 0, 0, time.UTC)
	a.gh.SetHead("acme/shop#7", sha('1'))
	failingRun(a.gh, 501, 12)
	a.deliver("workflow_run", "p-1", ciFixture(t, "workflow_run.completed.json", "workflow_run", 501, sha('1'), "failure", t0, 1))
	failingRun(a.gh, 502, 13)
	a.gh.Fail(http.MethodPost, "/repos/acme/shop/issues/7/comments", http.StatusBadGateway, 3)
	a.deliver("workflow_run", "p-2", ciFixture(t, "workflow_run.completed.json", "workflow_run", 502, sha('1'), "failure", t0.Add(time.Minute), 2))
	if c := a.failureComments(); len(c) != 1 || !strings.Contains(c[0].Body, "→ **PIVOT**") {
		t.Fatalf("after the retry: %d failure comments", len(c))
	}
	st, err := a.srv.Store.Stats(context.Background())
	if err != nil || st.Dialectic.ByType["failure"]["PIVOT"] != 1 {
		t.Errorf("one debate held: %+v %v", st.Dialectic, err)
	}
	posts := 0
	for _, c := range a.gh.Calls() {
		if c.Method == http.MethodPost && c.Path == "/repos/acme/shop/issues/7/comments" {
			posts++
		}
	}
	if posts != 4 {
		t.Errorf("comment posts %d, want 3 failed and 1 that worked", posts)
	}
	if got := a.gh.LogDownloads()[1502]; got != 1 {
		t.Errorf("the retry read the log again (%d downloads)", got)
	}
	// A success on a pull request whose task never failed makes no request.
	n := len(a.gh.Calls())
	a.deliver("workflow_run", "p-3", ciFixture(t, "workflow_run.completed.json", "workflow_run", 503, sha('1'), "success", t0.Add(2*time.Minute), 1))
	var p map[string]any
	_ = json.Unmarshal(ciFixture(t, "workflow_run.completed.json", "workflow_run", 504, sha('1'), "success", t0, 1), &p)
	p["workflow_run"].(map[string]any)["name"] = "Nightly"
	body, _ := json.Marshal(p)
	a.deliver("workflow_run", "p-4", body)
	if calls := a.gh.Calls()[n:]; len(calls) != 3 {
		t.Errorf("a passing run of a task that failed makes 3 requests (pull request, config, comment), one that never failed none: got %d", len(calls))
	}
}

// A failure whose debate was decided in the store but never held (the worker stopped between
// recording the failure and holding the debate) is debated when GitHub redelivers the run: once,
// and a later redelivery republishes rather than debating again.
func TestDecidedFailureDebateHeldOnRedelivery(t *testing.T) {
	a := newApp(t)
	t0 := time.Date(2026, 1, 29, 14, 30, 0, 0, time.UTC)
	a.gh.SetHead("acme/shop#7", sha('1'))
	failingRun(a.gh, 601, 12)
	a.deliver("workflow_run", "s-1", ciFixture(t, "workflow_run.completed.json", "workflow_run", 601, sha('1'), "failure", t0, 1))
	first := a.task("CI")

	// What the second run's job did before it stopped: the failure recorded, and the debate
	// decided in the same transaction.
	failingRun(a.gh, 602, 13)
	f := &store.Failure{RunKey: "workflow_run/602/1@acme/shop#7", PR: "acme/shop#7", TaskID: first.TaskID, At: t0.Add(time.Minute),
		Fingerprint: first.Fingerprint, HeadSHA: sha('1'), Files: first.Files}
	var action failureAction
	task, recorded, err := a.srv.Store.RecordFailure(context.Background(), f, first.Task, nextStreak(f, &action))
	if err != nil || !recorded || action != holdDebate || task.Debated != 2 {
		t.Fatalf("recording the second failure: %+v recorded %v action %v err %v", task, recorded, action, err)
	}
	if c := a.failureComments(); len(c) != 0 {
		t.Fatalf("nothing is posted before the debate is held: %v", c)
	}

	redelivery := ciFixture(t, "workflow_run.completed.json", "workflow_run", 602, sha('1'), "failure", t0.Add(time.Minute), 1)
	a.deliver("workflow_run", "s-2", redelivery)
	c := a.failureComments()
	if len(c) != 1 || !strings.Contains(c[0].Body, "→ **PIVOT**") || !strings.Contains(c[0].Body, "Nothing changed between attempt 1 and attempt 2") {
		t.Fatalf("the decided debate was not held on redelivery: %v", c)
	}
	a.deliver("workflow_run", "s-3", redelivery)
	st, err := a.srv.Store.Stats(context.Background())
	if err != nil || st.Dialectic.ByType["failure"]["PIVOT"] != 1 || len(a.failureComments()) != 1 {
		t.Errorf("a second redelivery held another debate: %+v %v, %d comments", st.Dialectic, err, len(a.failureComments()))
	}
	a.checkCalls()
}

// A run whose payload names no pull request (a fork's, or a head several pull requests share)
// is recorded on every open pull request GitHub lists for its commit, as GitHub lists them (none
// is read again); the run's failure is read once for all of them, and held as a debate on each.
func TestFailureOnAHeadTwoPullRequestsShare(t *testing.T) {
	a := newApp(t)
	gh := a.gh
	t0 := time.Date(2026, 1, 29, 14, 30, 0, 0, time.UTC)
	gh.SetHead("acme/shop#7", sha('1'))
	gh.PRs["acme/shop#8"] = &githubtest.PR{Title: "Add admin user export (backport)", BaseRef: "release", HeadRef: "export", HeadSHA: sha('1')}
	unnamed := func(id int64, at time.Time) []byte {
		var p map[string]any
		if err := json.Unmarshal(ciFixture(t, "workflow_run.completed.json", "workflow_run", id, sha('1'), "failure", at, 1), &p); err != nil {
			t.Fatal(err)
		}
		p["workflow_run"].(map[string]any)["pull_requests"] = []any{}
		body, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		return body
	}
	_, taskID := ciTask(&CIRun{Name: "CI"}, review.PullRequest{Owner: "acme", Repo: "shop", Number: 8})
	n := 0
	for i, id := range []int64{701, 702} {
		failingRun(gh, id, 12+i)
		a.deliver("workflow_run", fmt.Sprintf("u-%d", i), unnamed(id, t0.Add(time.Duration(i)*time.Minute)))
		n = a.logCalls(fmt.Sprintf("failure %d on a head two pull requests share", i+1), n)
		if got := gh.LogDownloads()[id+1000]; got != 1 {
			t.Errorf("run %d's log was downloaded %d times for two pull requests, want once", id, got)
		}
		if task := a.task("CI"); task.Streak != i+1 {
			t.Errorf("#7 after failure %d: %+v", i+1, task)
		}
		if task, err := a.srv.Store.FailureTaskOf(context.Background(), "acme/shop#8", taskID); err != nil || task.Streak != i+1 {
			t.Errorf("#8 after failure %d: %+v %v", i+1, task, err)
		}
	}
	gets := 0
	for _, c := range gh.Calls() {
		if c.Operation == "pulls/get" {
			gets++
		}
	}
	if gets != 0 {
		t.Errorf("the pull requests GitHub listed for the commit were read again (%d pulls/get)", gets)
	}
	for _, key := range []string{"acme/shop#7", "acme/shop#8"} {
		var debates []string
		for _, c := range gh.CommentsOn(key) {
			if strings.HasPrefix(c.Body, "<!-- debatebot:failure-") {
				debates = append(debates, c.Body)
			}
		}
		if len(debates) != 1 || !strings.Contains(debates[0], "→ **PIVOT**") || !strings.Contains(debates[0], "auth/auth.go:13:3: undefined: NewToken") {
			t.Errorf("failure debates on %s: %v", key, debates)
		}
	}
	a.checkCalls()
}
