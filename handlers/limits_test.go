package handlers

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/review/render"
)

// reactions counts the reactions of each content on the comments of the test's commands.
func (a *app) reactions() map[string]int {
	out := map[string]int{}
	for id, list := range a.gh.Reactions {
		if id <= 5000 {
			continue // not a command of commentFixture
		}
		for _, c := range list {
			out[c]++
		}
	}
	return out
}

// callsTo counts the requests whose path ends with suffix.
func (a *app) callsTo(method, suffix string) int {
	n := 0
	for _, c := range a.gh.Calls() {
		if c.Method == method && strings.HasSuffix(c.Path, suffix) {
			n++
		}
	}
	return n
}

// comment posts a command by user on acme/shop#7 and waits until the App is done with it.
func (a *app) comment(t *testing.T, user, body string) {
	t.Helper()
	if code := a.post("issue_comment", fmt.Sprintf("c-%s-%d", user, commentIDs.Load()+1), commentFixture(t, user, body), secret); code >= 300 {
		t.Fatalf("the command was answered %d", code)
	}
	a.srv.Queue.Wait()
}

// /help by anyone is answered by comment MaxHelpComments (2) times an hour per user and pull
// request, by a reaction after that, and not at all after MaxAnswers (10) answers: 12 /help
// comments by one reader give 2 comments, 8 reactions and 2 silences, with no permission lookup
// and a pull request read only for the two comments. Another user is still answered.
func TestHelpAnswersAreBoundedPerUser(t *testing.T) {
	a := newApp(t)
	for i := 0; i < 12; i++ {
		a.comment(t, "mallory", "/help")
	}
	if n := a.commentsContaining("**debatebot commands**"); n != MaxHelpComments {
		t.Errorf("%d help comments for 12 /help, want %d", n, MaxHelpComments)
	}
	if got := a.reactions(); got[HelpReaction] != MaxAnswers-MaxHelpComments || len(got) != 1 {
		t.Errorf("reactions = %v, want %d %q", got, MaxAnswers-MaxHelpComments, HelpReaction)
	}
	if n := a.callsTo("GET", "/collaborators/mallory/permission"); n != 0 {
		t.Errorf("%d permission lookups for /help, want none", n)
	}
	if n := a.callsTo("GET", "/repos/acme/shop/pulls/7"); n != MaxHelpComments {
		t.Errorf("the pull request was read %d times, want %d (once per comment answer)", n, MaxHelpComments)
	}
	a.gh.Permissions["acme/shop:bob"] = "read"
	a.comment(t, "bob", "/debate help")
	if n := a.commentsContaining("**debatebot commands**"); n != MaxHelpComments+1 {
		t.Errorf("another user's /debate help got no answer (%d help comments)", n)
	}
	a.checkCalls()
}

// Refusals to one user on one pull request: the first by comment, the next ones by a 👎 reaction
// on the command, and after MaxAnswers (10) answers nothing at all, not even the permission
// lookup: 12 /debate comments by a reader give 1 comment, 9 reactions and 10 permission
// lookups. /help by the same user then gets nothing either; another user gets their refusal.
func TestRefusalsAreBoundedPerUser(t *testing.T) {
	a := newApp(t)
	for i := 0; i < 12; i++ {
		a.comment(t, "mallory", "/debate")
	}
	if n := a.commentsContaining("@mallory: debatebot commands need write permission"); n != MaxRefusalComments {
		t.Errorf("%d refusal comments for 12 /debate, want %d", n, MaxRefusalComments)
	}
	if got := a.reactions(); got[RefusalReaction] != MaxAnswers-MaxRefusalComments || len(got) != 1 {
		t.Errorf("reactions = %v, want %d %q", got, MaxAnswers-MaxRefusalComments, RefusalReaction)
	}
	if n := a.callsTo("GET", "/collaborators/mallory/permission"); n != MaxAnswers {
		t.Errorf("%d permission lookups for 12 commands, want %d", n, MaxAnswers)
	}
	before := len(a.gh.Calls())
	a.comment(t, "mallory", "/help")
	a.comment(t, "mallory", "/human-review")
	if calls := a.gh.Calls()[before:]; len(calls) != 0 {
		t.Errorf("a muted user's commands made %d requests to GitHub (%s %s ...), want none", len(calls), calls[0].Method, calls[0].Path)
	}
	a.gh.Permissions["acme/shop:bob"] = "read"
	a.comment(t, "bob", "/debate fast-track")
	if n := a.commentsContaining("@bob: debatebot commands need write permission"); n != 1 {
		t.Errorf("another user's refusal: %d comments, want 1", n)
	}
	if len(a.gh.Checks("acme/shop")) != 0 {
		t.Error("a refused command started a debate")
	}
	a.checkCalls()
}

// Commands delivered at once, as an attacker sends them, are bounded all the same: the store
// decides each answer atomically.
func TestConcurrentRefusalsAreBounded(t *testing.T) {
	a := newApp(t)
	for i := 0; i < 15; i++ {
		a.post("issue_comment", fmt.Sprintf("cc-%d", i), commentFixture(t, "mallory", "/debate extended"), secret)
	}
	a.srv.Queue.Wait()
	if n := a.commentsContaining("@mallory:"); n != MaxRefusalComments {
		t.Errorf("%d refusal comments, want %d", n, MaxRefusalComments)
	}
	if got := a.reactions(); got[RefusalReaction] != MaxAnswers-MaxRefusalComments {
		t.Errorf("reactions = %v, want %d %q", got, MaxAnswers-MaxRefusalComments, RefusalReaction)
	}
	// Each worker may look a permission up before it sees the others' answers recorded.
	if n := a.callsTo("GET", "/collaborators/mallory/permission"); n > MaxAnswers+a.srv.workers {
		t.Errorf("%d permission lookups, want at most %d", n, MaxAnswers+a.srv.workers)
	}
}

// pushTo delivers a push of head to acme/shop#7 (opened for the first).
func (a *app) pushTo(t *testing.T, n int, head string) {
	t.Helper()
	a.gh.SetHead("acme/shop#7", head)
	name := "pull_request.synchronize.json"
	if n == 0 {
		name = "pull_request.opened.json"
	}
	body := fixture(t, name, func(p map[string]any) { p["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = head })
	if code := a.post("pull_request", fmt.Sprintf("push-%d-%s", n, head), body, secret); code >= 300 {
		t.Fatalf("the push was answered %d", code)
	}
	a.srv.Queue.Wait()
}

// budget.debates_per_hour counts debates whatever starts them: with 2, the third push within the
// hour is skipped, the pull request says why and when a debate can run again (one comment, not
// written again on the next push, and a neutral check run on each skipped head), and an hour
// after the first debate a push is debated again.
func TestPushesOverTheHourlyBudgetAreSkipped(t *testing.T) {
	a := newAppClocked(t, nil, nil, true)
	a.gh.Contents["acme/shop@main:.github/debatebot.yml"] = "budget: {debates_per_hour: 2}\n"
	heads := []string{"abc123", "def456", "fff999", "aaa111"}
	for i, head := range heads {
		a.pushTo(t, i, head)
	}
	ctx := context.Background()
	if ds, _ := a.srv.Store.Debates(ctx); len(ds) != 2 {
		t.Errorf("%d debates for 4 pushes with a budget of 2 an hour, want 2", len(ds))
	}
	notes := a.comments(BudgetMarker)
	if len(notes) != 1 || !strings.Contains(notes[0].Body, "this repository's budget of 2 debates an hour, whatever starts them") ||
		!strings.Contains(notes[0].Body, "The next debate can start after ") || !strings.Contains(notes[0].Body, "`budget.debates_per_hour`") {
		t.Fatalf("budget comments = %+v, want one saying why and when", notes)
	}
	if n := a.callsTo("PATCH", fmt.Sprintf("/issues/comments/%d", notes[0].ID)); n != 0 {
		t.Errorf("the budget comment was edited %d times on later pushes, want never", n)
	}
	skipped := map[string]bool{}
	for _, run := range a.gh.Checks("acme/shop") {
		if run.Conclusion == "neutral" && strings.Contains(run.Title, "budget") {
			skipped[run.HeadSHA] = true
		}
	}
	if !skipped["fff999"] || !skipped["aaa111"] || len(skipped) != 2 {
		t.Errorf("neutral check runs on %v, want the two skipped heads", skipped)
	}
	// An hour after the first debate, a push is debated again.
	a.skew.Store(int64(time.Hour + time.Minute))
	a.pushTo(t, 9, "bbb222")
	if ds, _ := a.srv.Store.Debates(ctx); len(ds) != 3 {
		t.Errorf("%d debates after the hour, want 3", len(ds))
	}
	a.checkCalls()
}

// budget.model_tokens_per_day: a model-backed debate counts its tokens against the day, and
// once they are spent the next debate runs with the offline agents (the model is not asked), and
// its summary, record and check run say it ran offline because of the budget.
func TestDebateRunsOfflineWhenTheTokensAreSpent(t *testing.T) {
	llm := llmtest.New(t, nil)
	a := newAppWith(t, func(cfg *config.Server) { cfg.OpenAIKey, cfg.OpenAIBaseURL = "sk-test", llm.BaseURL() })
	a.gh.Contents["acme/shop@main:.github/debatebot.yml"] = "budget: {model_tokens_per_day: 1000}\n"
	a.pushTo(t, 0, "abc123")
	asked := len(llm.Requests())
	if asked == 0 {
		t.Fatal("the first debate did not ask the model")
	}
	ctx := context.Background()
	spent, err := a.srv.Store.TokensSpent(ctx, "acme/shop", time.Now())
	if b := llm.Billed(); err != nil || spent != b.Prompt+b.Completion || spent < 1000 {
		t.Fatalf("tokens counted today = %d (%v), want the %d the model billed, over the budget", spent, err, b.Prompt+b.Completion)
	}
	a.pushTo(t, 1, "def456")
	if n := len(llm.Requests()); n != asked {
		t.Errorf("the model was asked %d more times after the day's tokens were spent, want none", n-asked)
	}
	tr, dec := a.comments(render.TranscriptMarker), a.comments(render.DecisionMarker)
	if len(tr) != 1 || len(dec) != 1 {
		t.Fatalf("%d transcript and %d decision comments", len(tr), len(dec))
	}
	for _, want := range []string{"> **Offline debate.** This repository's model budget for the day", "offline agents: This repository's model budget for the day (`budget.model_tokens_per_day`: 1000 tokens) is spent", "model-backed agents are back after 00:00 UTC"} {
		if !strings.Contains(tr[0].Body, want) {
			t.Errorf("the summary lacks %q:\n%s", want, tr[0].Body)
		}
	}
	if !strings.Contains(dec[0].Body, "trigger: pull_request.synchronize") {
		t.Errorf("the decision is not the push's:\n%s", dec[0].Body)
	}
	runs := a.gh.Checks("acme/shop")
	if last := runs[len(runs)-1]; last.HeadSHA != "def456" || !strings.Contains(last.Summary, "offline agents: the repository's model budget for the day is spent") {
		t.Errorf("the check run of the offline debate = %+v", last)
	}
	if ds, _ := a.srv.Store.Debates(ctx); len(ds) != 2 {
		t.Errorf("%d debates, want 2", len(ds))
	}
}

// The budget covers every trigger: after a push spent the hour's one debate, a planning debate
// asked by a writer is skipped with the same note, and no model is asked.
func TestPlanningCountsAgainstTheBudget(t *testing.T) {
	llm := llmtest.New(t, nil)
	a := newAppWith(t, func(cfg *config.Server) { cfg.OpenAIKey, cfg.OpenAIBaseURL = "sk-test", llm.BaseURL() })
	a.gh.Contents["acme/shop@main:.github/debatebot.yml"] = "budget: {debates_per_hour: 1}\n"
	a.pushTo(t, 0, "abc123")
	asked := len(llm.Requests())
	a.comment(t, "alice", "/debate plan move the export to a background job")
	if n := len(a.comments(BudgetMarker)); n != 1 {
		t.Errorf("%d budget notes after the planning debate over the budget, want 1", n)
	}
	if a.commentsContaining("<!-- debatebot:plan-") > 0 || len(llm.Requests()) != asked {
		t.Error("the planning debate over the budget was held")
	}
}
