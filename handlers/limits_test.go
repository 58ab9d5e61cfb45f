package handlers

import (
	"fmt"
	"strings"
	"testing"
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
