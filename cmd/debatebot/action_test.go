package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/gittest"
	"github.com/debatebot/debatebot/review/render"
)

// actionToken is a workflow token as GitHub issues them (the format of its documentation's
// example): it must appear nowhere in what the action prints or publishes.
const actionToken = "ghs_16C7e42F292c6912E7710c838347Ae178B4a"

// actionRepo is the nilguard change as acme/shop#7 on the fake GitHub, and its repository: the
// base tree on main, the head on feature. The nil dereference it makes possible is found only by
// the type-checked analysis, at head, over whole trees.
func actionRepo(t *testing.T) (*githubtest.Server, string) {
	t.Helper()
	gh := githubtest.New(t)
	// The workflow token comments as github-actions[bot].
	gh.Slug = "github-actions"
	dir := gittest.FromTrees(t, "../../handlers/testdata/nilguard/base", "../../handlers/testdata/nilguard/head")
	diff, err := exec.Command("git", "-C", dir, "diff", "--no-color", "--no-ext-diff", "main..feature").Output()
	if err != nil {
		t.Fatal(err)
	}
	gh.PRs["acme/shop#7"] = &githubtest.PR{Title: "Describe users without a fallback", BaseRef: "main", HeadRef: "feature",
		BaseSHA: gittest.Rev(t, dir, "main"), HeadSHA: gittest.Rev(t, dir, "feature"), Diff: string(diff), Commits: []string{"head"}}
	return gh, dir
}

// actionEvent writes a real event payload (handlers/testdata/webhooks) pointed at acme/shop#7 and
// its commits, and returns its path.
func actionEventFile(t *testing.T, name string, pr *githubtest.PR, edit func(map[string]any)) string {
	t.Helper()
	p := githubtest.Payload(t, filepath.Join("..", "..", "handlers", "testdata", "webhooks", name))
	if v, ok := p["pull_request"].(map[string]any); ok {
		v["number"], v["url"] = 7, "https://api.github.com/repos/acme/shop/pulls/7"
		v["head"].(map[string]any)["sha"] = pr.HeadSHA
		v["base"].(map[string]any)["sha"] = pr.BaseSHA
		p["number"] = 7
	}
	if v, ok := p["issue"].(map[string]any); ok {
		v["number"] = 7
	}
	if edit != nil {
		edit(p)
	}
	out, _ := json.Marshal(p)
	path := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type actionResult struct {
	code           int
	stdout, stderr string
	summary        string
}

// runAction runs the built binary as a workflow step runs it: `debatebot action` with the
// workflow's environment (git and go from the test's PATH, go's caches under its HOME).
func runAction(t *testing.T, bin string, gh *githubtest.Server, event, eventPath, workspace string, extra ...string) actionResult {
	t.Helper()
	summary := filepath.Join(t.TempDir(), "step_summary.md")
	before := len(gh.Calls())
	env := []string{
		"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=" + event, "GITHUB_EVENT_PATH=" + eventPath, "GITHUB_REPOSITORY=acme/shop",
		"GITHUB_TOKEN=" + actionToken, "GITHUB_API_URL=" + gh.URL, "GITHUB_WORKSPACE=" + workspace, "GITHUB_STEP_SUMMARY=" + summary,
		"GITHUB_SERVER_URL=https://github.com", "GITHUB_RUN_ID=4242", "DEBATEBOT_GOPROXY=off",
	}
	for _, k := range []string{"PATH", "HOME", "GOROOT", "GOPATH", "GOCACHE", "GOMODCACHE"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	cmd := exec.Command(bin, "action")
	cmd.Env = append(env, extra...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	s, _ := os.ReadFile(summary)
	for _, c := range gh.Calls()[before:] {
		q := ""
		if c.Query != "" {
			q = "?" + c.Query
		}
		accept := ""
		if strings.Contains(c.Accept, "diff") {
			accept = " (diff)"
		}
		t.Logf("request: %s %s%s%s -> %s", c.Method, c.Path, q, accept, c.Operation)
	}
	return actionResult{code: code, stdout: out.String(), stderr: errOut.String(), summary: string(s)}
}

// operations are the REST operations of the calls, in order.
func operations(gh *githubtest.Server) []string {
	var ops []string
	for _, c := range gh.Calls() {
		ops = append(ops, c.Operation)
	}
	return ops
}

func count(list []string, s string) int {
	n := 0
	for _, v := range list {
		if v == s {
			n++
		}
	}
	return n
}

// bodies are the comments of acme/shop#7 by their marker.
// reviewed reports whether the bot's review carries rule's finding at path:line: as a comment on
// the line, or in the review's body when the line is not in the diff.
func reviewed(gh *githubtest.Server, path string, line int, rule string) bool {
	for _, c := range gh.ReviewCommentsOn("acme/shop#7") {
		if c.Path == path && c.Line == line && strings.Contains(c.Body, "(`"+rule+"`)") {
			return true
		}
	}
	for _, r := range gh.ReviewsOn("acme/shop#7") {
		if strings.Contains(r.Body, fmt.Sprintf("- `%s:%d`: ", path, line)) && strings.Contains(r.Body, "`"+rule+"`)") {
			return true
		}
	}
	return false
}

func bodies(t *testing.T, gh *githubtest.Server) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, c := range gh.CommentsOn("acme/shop#7") {
		if c.User != "github-actions[bot]" {
			t.Errorf("comment %d by %s, want github-actions[bot]", c.ID, c.User)
		}
		marker, _, _ := strings.Cut(c.Body, "\n")
		out[marker] = append(out[marker], c.Body)
	}
	return out
}

// `debatebot action` on a real pull_request.opened payload debates the pull request over the
// whole trees of the workflow's checkout (no git fetch, no diff from the API), with the
// debatebot.yml of the base branch, and publishes what the App publishes with the workflow token:
// the transcript and the decision by marker, the check run concluded with its annotations. A
// synchronize payload then edits the same two comments. The token is nowhere.
func TestActionDebatesPullRequestFromCheckout(t *testing.T) {
	t.Parallel() // a process of its own: waits on it overlap another test's
	bin := buildBinary(t)
	gh, dir := actionRepo(t)
	pr := gh.PRs["acme/shop#7"]
	// The base branch's configuration rules; the pull request's own (which it could change) does not.
	gh.Contents["acme/shop@main:"+config.RepoPath] = "protocol: fast-track\n"
	gh.Contents["acme/shop@feature:"+config.RepoPath] = "protocol: extended\n"

	res := runAction(t, bin, gh, "pull_request", actionEventFile(t, "pull_request.opened.json", pr, nil), dir)
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	t.Logf("stdout:\n%s", res.stdout)
	ops := operations(gh)
	if u := gh.Unknown(); len(u) > 0 {
		t.Errorf("requests that are no GitHub operation: %+v", u)
	}
	for _, c := range gh.Calls() {
		if strings.Contains(c.Accept, "diff") || c.Operation == "pulls/list-files" || strings.HasPrefix(c.Operation, "git/") {
			t.Errorf("the change was read from GitHub (%s %s), not from the checkout", c.Method, c.Path)
		}
		if c.Operation == "repos/get-content" && (!strings.HasSuffix(c.Path, "/"+config.RepoPath) || c.Query != "ref=main") {
			t.Errorf("contents read %s?%s, want only %s at ref=main", c.Path, c.Query, config.RepoPath)
		}
	}
	for op, want := range map[string]int{"pulls/get": 1, "repos/get-content": 1, "checks/create": 1, "issues/create-comment": 2, "issues/list-comments": 1} {
		if got := count(ops, op); got != want {
			t.Errorf("%d %s requests, want %d (requests: %v)", got, op, want, ops)
		}
	}
	got := bodies(t, gh)
	transcript, decision := got[render.TranscriptMarker], got[render.DecisionMarker]
	if len(transcript) != 1 || len(decision) != 1 {
		t.Fatalf("%d transcript and %d decision comments, want one each: %v", len(transcript), len(decision), got)
	}
	if !reviewed(gh, "api/user.go", 19, "nilness") {
		t.Errorf("the whole-tree finding is not in the review")
	}
	for _, want := range []string{"decision: request_changes", "protocol: fast-track", "trigger: pull_request.opened", "pr_number: 7", "head_sha: " + pr.HeadSHA} {
		if !strings.Contains(decision[0], want) {
			t.Errorf("the decision comment lacks %q:\n%s", want, decision[0])
		}
	}
	runs := gh.Checks("acme/shop")
	if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != "action_required" || runs[0].HeadSHA != pr.HeadSHA {
		t.Fatalf("check runs %+v, want one on the head, concluded action_required", runs)
	}
	annotated := false
	for _, a := range runs[0].Annotations {
		annotated = annotated || (a.Path == "api/user.go" && a.StartLine == 19 && strings.Contains(a.Title, "nilness"))
	}
	if !annotated {
		t.Errorf("the check run's annotations %+v lack the nil dereference at api/user.go:19", runs[0].Annotations)
	}
	if !strings.Contains(res.stdout, "::notice title=debatebot::acme/shop#7: ") || !strings.Contains(res.stdout, render.DecisionMarker+"\n## debatebot decision: ") {
		t.Errorf("stdout lacks the notice or the decision:\n%s", res.stdout)
	}
	if !strings.HasPrefix(res.summary, render.DecisionMarker+"\n## debatebot decision: ") || !strings.Contains(res.summary, "<details><summary>The whole debate</summary>") ||
		!strings.Contains(res.summary, "| `api/user.go:19` | nilness |") {
		t.Errorf("the job summary lacks the decision or the transcript:\n%s", res.summary)
	}

	// A push: the same two comments are edited, a second check run concludes on the head.
	before := len(gh.Calls())
	res = runAction(t, bin, gh, "pull_request", actionEventFile(t, "pull_request.synchronize.json", pr, nil), dir)
	if res.code != 0 {
		t.Fatalf("second run: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	got = bodies(t, gh)
	if len(got[render.TranscriptMarker]) != 1 || len(got[render.DecisionMarker]) != 1 || !strings.Contains(got[render.DecisionMarker][0], "trigger: pull_request.synchronize") {
		t.Errorf("after the push: comments %v, want the one transcript and the one decision edited", got)
	}
	var second []string
	for _, c := range gh.Calls()[before:] {
		second = append(second, c.Operation)
	}
	if count(second, "issues/create-comment") != 0 || count(second, "issues/update-comment") < 2 {
		t.Errorf("the second run's requests %v: want the comments edited, none created", second)
	}

	var seen []string
	seen = append(seen, res.stdout, res.stderr, res.summary)
	for _, c := range gh.CommentsOn("acme/shop#7") {
		seen = append(seen, c.Body)
	}
	for _, r := range gh.Checks("acme/shop") {
		seen = append(seen, r.Title, r.Summary)
	}
	for _, s := range seen {
		if strings.Contains(s, actionToken) {
			t.Fatalf("the workflow token appears in what was printed or published:\n%s", s)
		}
	}
}

// The workflow token of a pull request from a fork cannot create check runs: GitHub answers 403
// "Resource not accessible by integration". The action does not fail for it, nor try again: the
// comments are published, and a notice says why the check run is missing.
func TestActionWithoutChecksPermissionStillComments(t *testing.T) {
	t.Parallel() // a process of its own: waits on it overlap another test's
	bin := buildBinary(t)
	gh, dir := actionRepo(t)
	gh.Deny(func(c githubtest.Call) bool { return strings.HasPrefix(c.Operation, "checks/") })
	res := runAction(t, bin, gh, "pull_request_target", actionEventFile(t, "pull_request.opened.json", gh.PRs["acme/shop#7"], nil), dir)
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	t.Logf("stdout:\n%s", res.stdout)
	ops := operations(gh)
	if n := count(ops, "checks/create") + count(ops, "checks/update"); n != 1 {
		t.Errorf("%d check-run requests, want the one GitHub refused (requests: %v)", n, ops)
	}
	got := bodies(t, gh)
	if len(got[render.TranscriptMarker]) != 1 || len(got[render.DecisionMarker]) != 1 || !strings.Contains(got[render.DecisionMarker][0], "trigger: pull_request_target.opened") {
		t.Errorf("comments %v, want the transcript and the decision", got)
	}
	if !strings.Contains(res.stdout, "::notice title=debatebot::The token cannot create check runs here") {
		t.Errorf("no notice about the check run:\n%s", res.stdout)
	}
	if len(gh.Checks("acme/shop")) != 0 {
		t.Errorf("check runs %+v, want none", gh.Checks("acme/shop"))
	}
}

// A read-only token (a fork's pull_request event) can publish nothing: the debate is in the job
// summary, a warning says so, and the run does not fail.
func TestActionReadOnlyTokenWritesTheJobSummary(t *testing.T) {
	t.Parallel() // a process of its own: waits on it overlap another test's
	bin := buildBinary(t)
	gh, dir := actionRepo(t)
	gh.Deny(func(c githubtest.Call) bool { return c.Method != "GET" })
	res := runAction(t, bin, gh, "pull_request", actionEventFile(t, "pull_request.opened.json", gh.PRs["acme/shop#7"], nil), dir)
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	t.Logf("stdout:\n%s", res.stdout)
	if !strings.Contains(res.stdout, "::warning title=debatebot::The token cannot comment on acme/shop#7") {
		t.Errorf("no warning about the comments:\n%s", res.stdout)
	}
	if !strings.Contains(res.summary, "> Not published on acme/shop#7") || !strings.Contains(res.summary, "| `api/user.go:19` | nilness |") {
		t.Errorf("the job summary lacks the debate:\n%s", res.summary)
	}
	if n := count(operations(gh), "issues/create-comment"); n != 1 {
		t.Errorf("%d comments tried, want one (the first refusal stops them)", n)
	}
}

// A shallow checkout (the default fetch-depth 1) lacks the base commit: the change is read through
// the API as the App reads it, and the changed packages' directories through the contents API,
// which the transcript says.
func TestActionShallowCheckoutFallsBackToTheAPI(t *testing.T) {
	t.Parallel() // a process of its own: waits on it overlap another test's
	bin := buildBinary(t)
	gh, dir := actionRepo(t)
	gh.AddGitRepo("acme/shop", dir)
	shallow := filepath.Join(t.TempDir(), "ws")
	if out, err := exec.Command("git", "clone", "-q", "--depth", "1", "--branch", "feature", "file://"+dir, shallow).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	res := runAction(t, bin, gh, "pull_request", actionEventFile(t, "pull_request.opened.json", gh.PRs["acme/shop#7"], nil), shallow)
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	diffs := 0
	for _, c := range gh.Calls() {
		if c.Operation == "pulls/get" && strings.Contains(c.Accept, "diff") {
			diffs++
		}
	}
	if diffs != 1 {
		t.Errorf("%d diff requests, want the change read through the API once", diffs)
	}
	transcript := bodies(t, gh)[render.TranscriptMarker]
	want := fmt.Sprintf("whole trees unavailable (commit %s is not in the checkout at GITHUB_WORKSPACE (check out with fetch-depth: 0))", gh.PRs["acme/shop#7"].BaseSHA)
	if len(transcript) != 1 || !strings.Contains(transcript[0], want) || !reviewed(gh, "api/user.go", 19, "nilness") {
		t.Errorf("the transcript lacks %q or the finding the directories give:\n%v", want, transcript)
	}
}

// Events the action does not debate end with a notice and exit 0, without a request; bad input
// exits 2 with a one-line error as a workflow command.
func TestActionEventsItDoesNotDebate(t *testing.T) {
	gh := githubtest.New(t)
	write := func(body string) string {
		p := filepath.Join(t.TempDir(), "event.json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	env := func(event, path string) map[string]string {
		return map[string]string{"GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": path, "GITHUB_REPOSITORY": "acme/shop", "GITHUB_TOKEN": actionToken, "GITHUB_API_URL": gh.URL}
	}
	closed := actionEventFile(t, "pull_request.closed.json", &githubtest.PR{HeadSHA: "abc", BaseSHA: "def"}, nil)
	comment := func(body string, onPR bool) string {
		return actionEventFile(t, "issue_comment.created.on-pull-request.json", &githubtest.PR{}, func(p map[string]any) {
			p["comment"].(map[string]any)["body"] = body
			if !onPR {
				delete(p["issue"].(map[string]any), "pull_request")
			}
		})
	}
	for _, c := range []struct {
		name, event, path, want string
	}{
		{"push", "push", write(`{"ref":"refs/heads/main"}`), "the push event is not handled"},
		{"closed", "pull_request", closed, "pull_request.closed is not debated"},
		{"no command", "issue_comment", comment("looks good", true), "the comment is no debatebot command"},
		{"issue", "issue_comment", comment("/debate", false), "/debate on issue #7: design debates on issues are the App's"},
		{"checkpoint", "issue_comment", comment("/debate continue", true), "/debate continue needs the App's durable state"},
		{"human review", "issue_comment", comment("/human-review", true), "/human-review needs the App's durable state"},
	} {
		code, out, errOut := runCmd(t, "", env(c.event, c.path), "action")
		if code != 0 || !strings.Contains(out, "::notice title=debatebot::Nothing to debate: "+c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 0 and a notice saying %q", c.name, code, out, errOut, c.want)
		}
	}
	if calls := gh.Calls(); len(calls) != 0 {
		t.Errorf("requests for events not debated: %+v", calls)
	}
	code, out, errOut := runCmd(t, "", map[string]string{"GITHUB_EVENT_NAME": "pull_request"}, "action")
	if code != 2 || !strings.HasPrefix(out, "::error title=debatebot::action runs inside a GitHub Actions workflow: GITHUB_EVENT_PATH, GITHUB_REPOSITORY, GITHUB_TOKEN not set") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("without the workflow's environment: exit %d, stdout %q, stderr %q; want 2 and one error", code, out, errOut)
	}
	code, out, _ = runCmd(t, "", env("pull_request", write("{")), "action")
	if code != 2 || !strings.Contains(out, "::error title=debatebot::the pull_request payload at ") {
		t.Errorf("a broken payload: exit %d, stdout %q; want 2 and an error", code, out)
	}
}

// /debate on a pull request by a user without command_permission is answered as the App answers
// it, and nothing is debated.
func TestActionRefusesCommandWithoutPermission(t *testing.T) {
	gh, dir := actionRepo(t)
	gh.Permissions["acme/shop:mallory"] = "read"
	path := actionEventFile(t, "issue_comment.created.on-pull-request.json", gh.PRs["acme/shop#7"], func(p map[string]any) {
		p["comment"].(map[string]any)["body"] = "/debate"
		p["sender"] = map[string]any{"login": "mallory", "type": "User"}
	})
	code, out, errOut := runCmd(t, "", map[string]string{"GITHUB_EVENT_NAME": "issue_comment", "GITHUB_EVENT_PATH": path, "GITHUB_REPOSITORY": "acme/shop",
		"GITHUB_TOKEN": actionToken, "GITHUB_API_URL": gh.URL, "GITHUB_WORKSPACE": dir}, "action")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	comments := gh.CommentsOn("acme/shop#7")
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "@mallory: debatebot commands need write permission on this repository; you have read.") {
		t.Errorf("comments %+v, want the refusal", comments)
	}
	if n := len(gh.Checks("acme/shop")); n != 0 {
		t.Errorf("%d check runs, want none", n)
	}
}

// action.yml (a composite action) builds this binary and runs its action command, and hands
// every input to the binary under the name the action reads.
func TestActionYAMLMapsEveryInput(t *testing.T) {
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				Run string            `yaml:"run"`
				Env map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, s := range a.Runs.Steps {
		runs = append(runs, s.Run)
	}
	if a.Runs.Using != "composite" || len(a.Runs.Steps) == 0 || !strings.HasSuffix(strings.TrimSpace(runs[len(runs)-1]), " action") {
		t.Fatalf("runs %+v, want a composite action whose last step runs `debatebot action`", a.Runs)
	}
	if !strings.Contains(strings.Join(runs, "\n"), "go build") || !strings.Contains(strings.Join(runs, "\n"), "./cmd/debatebot") {
		t.Errorf("no step builds ./cmd/debatebot: %q", runs)
	}
	env := a.Runs.Steps[len(a.Runs.Steps)-1].Env
	// The names the action reads (review/workflow's readActionEnv, pipeline.Agents, action).
	read := map[string]bool{"GITHUB_TOKEN": true, "OPENAI_API_KEY": true, "OPENAI_BASE_URL": true, "DEBATEBOT_MODEL": true, "DEBATEBOT_REPO_CONFIG": true, "DEBATEBOT_ALLOWED_BOTS": true}
	mapped := map[string]bool{}
	for name, value := range env {
		input, ok := strings.CutPrefix(value, "${{ inputs.")
		input, ok2 := strings.CutSuffix(input, " }}")
		if !ok || !ok2 || !read[name] {
			t.Errorf("runs.env %s: %q is not an input the action reads", name, value)
			continue
		}
		mapped[input] = true
	}
	for name := range a.Inputs {
		if !mapped[name] {
			t.Errorf("input %s is not passed to the action", name)
		}
	}
	if a.Inputs["config"].Default != config.RepoPath {
		t.Errorf("the config input defaults to %q, want %q", a.Inputs["config"].Default, config.RepoPath)
	}
}

// When GitHub keeps failing to take the comments, the run fails (exit 1) with an error workflow
// command, after the App's three tries; the job summary still has the debate.
func TestActionFailsWhenGitHubKeepsFailing(t *testing.T) {
	gh, dir := actionRepo(t)
	gh.Fail("POST", "/repos/acme/shop/issues/7/comments", 502, 100)
	path := actionEventFile(t, "pull_request.opened.json", gh.PRs["acme/shop#7"], nil)
	summary := filepath.Join(t.TempDir(), "summary.md")
	code, out, errOut := runCmd(t, "", map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": path, "GITHUB_REPOSITORY": "acme/shop",
		"GITHUB_TOKEN": actionToken, "GITHUB_API_URL": gh.URL, "GITHUB_WORKSPACE": dir, "GITHUB_STEP_SUMMARY": summary}, "action")
	if code != 1 || !strings.Contains(out, "::error title=debatebot::failed to publish debate ") || !strings.Contains(errOut, "502 Server Error") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant 1 and the publication's error", code, out, errOut)
	}
	if n := count(operations(gh), "issues/create-comment"); n < 3 {
		t.Errorf("%d comment requests, want the App's three tries at least", n)
	}
	if s, _ := os.ReadFile(summary); !strings.Contains(string(s), "| `api/user.go:19` | nilness |") {
		t.Errorf("the job summary lacks the debate:\n%s", s)
	}
}

// A push to a debated pull request is debated as the App debates it: only what changed since the
// debated head (from the checkout, with both heads' whole trees), with the earlier required
// changes carried forward, resolved where the push changed their line.
func TestActionDebatesOnlyWhatAPushChanged(t *testing.T) {
	t.Parallel() // a process of its own: waits on it overlap another test's
	bin := buildBinary(t)
	gh, dir := actionRepo(t)
	pr := gh.PRs["acme/shop#7"]
	first := pr.HeadSHA
	if res := runAction(t, bin, gh, "pull_request", actionEventFile(t, "pull_request.opened.json", pr, nil), dir); res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if dec := bodies(t, gh)[render.DecisionMarker]; len(dec) != 1 || !strings.Contains(dec[0], "api/user.go:19") {
		t.Fatalf("the first debate did not require the change at api/user.go:19: %v", dec)
	}

	// The push returns early on the guest path, so the dereference at line 19 is gone.
	path := filepath.Join(dir, "api", "user.go")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fixed := strings.Replace(string(src), "\t\tlog.Printf(\"showing %s\", u.Name)\n", "\t\treturn \"guest\"\n", 1)
	if fixed == string(src) {
		t.Fatal("the fixture changed: no line 19 to fix")
	}
	if err := os.WriteFile(path, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-qm", "Return early for guests"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	pr.HeadSHA = gittest.Rev(t, dir, "feature")
	before := len(gh.Calls())
	res := runAction(t, bin, gh, "pull_request", actionEventFile(t, "pull_request.synchronize.json", pr, nil), dir)
	if res.code != 0 {
		t.Fatalf("push: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	for _, c := range gh.Calls()[before:] {
		if strings.Contains(c.Accept, "diff") || c.Operation == "repos/compare-commits" || c.Operation == "pulls/list-files" {
			t.Errorf("the push's change was read from GitHub (%s %s), not from the checkout", c.Method, c.Path)
		}
	}
	got := bodies(t, gh)
	transcript, decision := got[render.TranscriptMarker], got[render.DecisionMarker]
	if len(transcript) != 1 || len(decision) != 1 {
		t.Fatalf("comments %v, want the one transcript and decision edited", got)
	}
	for _, want := range []string{"<summary>Carried forward from " + first[:7] + "</summary>", "- [x] api/user.go:19: "} {
		if !strings.Contains(transcript[0]+decision[0], want) {
			t.Errorf("the push's debate lacks %q:\n%s\n%s", want, transcript[0], decision[0])
		}
	}
	if !strings.Contains(decision[0], "head_sha: "+pr.HeadSHA) {
		t.Errorf("the decision is not of the new head:\n%s", decision[0])
	}
}

// A push whose debated head is not in the checkout (a shallow one) is read from GitHub's
// comparison and, as the App reads it (Runner.since), the ignored paths are left out before the
// rest is read: an ignored file's content is never fetched.
func TestActionPushReadFromGitHubLeavesIgnoredFilesUnread(t *testing.T) {
	t.Parallel() // a process of its own: waits on it overlap another test's
	bin := buildBinary(t)
	gh, dir := actionRepo(t)
	pr := gh.PRs["acme/shop#7"]
	gh.Contents["acme/shop@main:"+config.RepoPath] = "ignore: [\"legacy/**\"]\n"
	if res := runAction(t, bin, gh, "pull_request", actionEventFile(t, "pull_request.opened.json", pr, nil), dir); res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	// The debated head, as the decision records it, is one the checkout does not have.
	gone := strings.Repeat("e", 40)
	edited := 0
	for _, c := range gh.Comments["acme/shop#7"] {
		if strings.HasPrefix(c.Body, render.DecisionMarker) {
			c.Body = strings.ReplaceAll(c.Body, "head_sha: "+pr.HeadSHA, "head_sha: "+gone)
			edited++
		}
	}
	if edited != 1 {
		t.Fatalf("%d decision comments", edited)
	}
	gh.Compares["acme/shop@"+gone+"..."+pr.HeadSHA] = []map[string]any{
		{"filename": "api/user.go", "status": "modified", "additions": 1, "deletions": 1, "changes": 2,
			"patch": "@@ -19,1 +19,1 @@\n-\t\tlog.Printf(\"guest\")\n+\t\tlog.Printf(\"showing %s\", u.Name)"},
		{"filename": "legacy/lib.go", "status": "modified", "additions": 1, "deletions": 1, "changes": 2, "patch": "@@ -3,1 +3,1 @@\n-var v = 1\n+var v = 2"},
	}
	before := len(gh.Calls())
	res := runAction(t, bin, gh, "pull_request", actionEventFile(t, "pull_request.synchronize.json", pr, nil), dir)
	if res.code != 0 {
		t.Fatalf("push: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	compared := false
	for _, c := range gh.Calls()[before:] {
		compared = compared || c.Operation == "repos/compare-commits"
		if strings.Contains(c.Path, "legacy/") {
			t.Errorf("an ignored file was read: %s %s", c.Method, c.Path)
		}
	}
	if !compared {
		t.Error("the push's change was not read from GitHub's comparison")
	}
	if dec := bodies(t, gh)[render.DecisionMarker]; len(dec) != 1 || !strings.Contains(dec[0], "head_sha: "+pr.HeadSHA) {
		t.Errorf("the push's decision: %v", dec)
	}
}
