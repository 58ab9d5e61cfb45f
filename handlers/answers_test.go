package handlers

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// questions puts n questions by user in the thread of root, one reply each, and returns the
// replies' ids.
func (a *app) questions(t *testing.T, root int64, user string, n int) []int64 {
	t.Helper()
	var ids []int64
	for i := 0; i < n; i++ {
		ids = append(ids, a.replyTo(t, root, user, fmt.Sprintf("Why is this a problem (%d)?", i), fmt.Sprintf("q-%s-%d", user, i)))
	}
	return ids
}

// repliesTo counts the bot's answers in the thread of root that contain text.
func (a *app) repliesTo(root int64, text string) int {
	n := 0
	for _, c := range a.botReplies(root) {
		if strings.Contains(c.Body, text) {
			n++
		}
	}
	return n
}

// reactionsOnEach counts the reactions of each content on the comments ids.
func (a *app) reactionsOnEach(ids []int64) map[string]int {
	out := map[string]int{}
	for _, id := range ids {
		for _, c := range a.gh.ReactionsOn(id) {
			out[c]++
		}
	}
	return out
}

// A writer who used up their answers in review threads (MaxReplyAnswers questions within the
// hour, and one more ignored) still has their commands answered on the pull request: /help by
// comment, and /debate runs a debate. The thread budget mutes threads, not commands.
func TestThreadAnswersDoNotMuteCommands(t *testing.T) {
	a, root := reviewed(t, nil)
	ids := a.questions(t, root.ID, "alice", MaxReplyAnswers+1)
	if n := a.repliesTo(root.ID, "@alice"); n != MaxQuestionComments {
		t.Fatalf("%d answers in the thread for %d questions, want %d", n, len(ids), MaxQuestionComments)
	}
	if got := a.reactionsOnEach(ids); got[AskedReaction] != MaxReplyAnswers-MaxQuestionComments || len(got) != 1 {
		t.Fatalf("reactions on the questions = %v, want %d %q", got, MaxReplyAnswers-MaxQuestionComments, AskedReaction)
	}
	a.comment(t, "alice", "/help")
	if n := a.commentsContaining("**debatebot commands**"); n != 1 {
		t.Errorf("/help after %d thread answers got %d answers, want 1", MaxReplyAnswers, n)
	}
	before, _ := a.srv.Store.Debates(context.Background())
	a.comment(t, "alice", "/debate")
	after, _ := a.srv.Store.Debates(context.Background())
	if len(after) != len(before)+1 {
		t.Errorf("/debate after %d thread answers: %d debates, want %d", MaxReplyAnswers, len(after), len(before)+1)
	}
	a.checkCalls()
}

// The reverse: a reader whose command answers are spent (12 /help: MaxAnswers answers, then
// silence) still gets their question in a thread answered, and their refused dismissal there
// answered by comment. The command budget mutes commands, not threads.
func TestCommandAnswersDoNotMuteThreads(t *testing.T) {
	a, root := reviewed(t, nil)
	for i := 0; i < MaxAnswers+2; i++ {
		a.comment(t, "mallory", "/help")
	}
	if n := a.commentsContaining("**debatebot commands**"); n != MaxHelpComments {
		t.Fatalf("%d help comments, want %d", n, MaxHelpComments)
	}
	before := len(a.gh.Calls())
	a.comment(t, "mallory", "/help")
	if calls := a.gh.Calls()[before:]; len(calls) != 0 {
		t.Fatalf("a muted /help made %d requests to GitHub, want none", len(calls))
	}
	a.replyTo(t, root.ID, "mallory", "Why? The country comes from our own dropdown.", "r-q")
	if n := a.repliesTo(root.ID, "**Why it matters:**"); n != 1 {
		t.Errorf("a question after %d command answers got %d answers in the thread, want 1", MaxAnswers, n)
	}
	a.replyTo(t, root.ID, "mallory", "false positive", "r-d")
	if n := a.repliesTo(root.ID, "needs write access"); n != 1 {
		t.Errorf("a refused dismissal after %d command answers got %d answers in the thread, want 1", MaxAnswers, n)
	}
	a.checkCalls()
}

// A refusal in a thread and a refusal of a command are each the first of their budget: a reader
// whose dismissal was refused in a thread gets their refused /debate answered by comment too (not
// by the reaction of a second refusal), and the reverse for another reader.
func TestThreadAndCommandRefusalsAreApart(t *testing.T) {
	a, root := reviewed(t, nil)
	a.gh.Permissions["acme/shop:bob"] = "read"
	a.gh.Permissions["acme/shop:carol"] = "read"
	bob := a.replyTo(t, root.ID, "bob", "false positive", "r-bob")
	a.comment(t, "bob", "/debate")
	if n := a.commentsContaining("@bob: debatebot commands need write permission"); n != 1 {
		t.Errorf("bob's /debate after a refused dismissal: %d refusal comments, want 1", n)
	}
	a.comment(t, "carol", "/debate")
	carol := a.replyTo(t, root.ID, "carol", "/debate dismiss it is fine", "r-carol")
	for user, want := range map[string]int{"@bob": 1, "@carol": 1} {
		n := 0
		for _, c := range a.botReplies(root.ID) {
			if strings.Contains(c.Body, user) && strings.Contains(c.Body, "needs write access") {
				n++
			}
		}
		if n != want {
			t.Errorf("%s's refused dismissal: %d answers in the thread, want %d", user, n, want)
		}
	}
	if got := a.reactionsOnEach([]int64{bob, carol}); len(got) != 0 {
		t.Errorf("reactions on the refused dismissals = %v, want none (each is its budget's first refusal)", got)
	}
	a.checkCalls()
}

// The thread budget still bounds its own family: 12 questions by one reader give
// MaxQuestionComments answers, 👀 on the next ones up to MaxReplyAnswers, and then nothing at all,
// not even a read of the thread; 12 refused dismissals by another give MaxRefusalComments answers
// and 👎 after them up to MaxReplyAnswers. A third reader is still answered.
func TestThreadAnswersAreBoundedPerUser(t *testing.T) {
	a, root := reviewed(t, nil)
	ids := a.questions(t, root.ID, "mallory", MaxReplyAnswers)
	before := len(a.gh.Calls())
	ids = append(ids, a.questions(t, root.ID, "mallory", 2)...)
	if calls := a.gh.Calls()[before:]; len(calls) != 0 {
		t.Errorf("a muted reply made %d requests to GitHub (%s %s ...), want none", len(calls), calls[0].Method, calls[0].Path)
	}
	if n := a.repliesTo(root.ID, "@mallory"); n != MaxQuestionComments {
		t.Errorf("%d answers to 12 questions, want %d", n, MaxQuestionComments)
	}
	if got := a.reactionsOnEach(ids); got[AskedReaction] != MaxReplyAnswers-MaxQuestionComments || len(got) != 1 {
		t.Errorf("reactions on the questions = %v, want %d %q", got, MaxReplyAnswers-MaxQuestionComments, AskedReaction)
	}
	a.gh.Permissions["acme/shop:bob"] = "read"
	var refused []int64
	for i := 0; i < MaxReplyAnswers+2; i++ {
		refused = append(refused, a.replyTo(t, root.ID, "bob", "false positive", fmt.Sprintf("r-bob-%d", i)))
	}
	if n := a.repliesTo(root.ID, "@bob"); n != MaxRefusalComments {
		t.Errorf("%d answers to 12 refused dismissals, want %d", n, MaxRefusalComments)
	}
	if got := a.reactionsOnEach(refused); got[RefusalReaction] != MaxReplyAnswers-MaxRefusalComments || len(got) != 1 {
		t.Errorf("reactions on the refused dismissals = %v, want %d %q", got, MaxReplyAnswers-MaxRefusalComments, RefusalReaction)
	}
	a.gh.Permissions["acme/shop:carol"] = "read"
	a.replyTo(t, root.ID, "carol", "What does this mean?", "r-carol")
	if n := a.repliesTo(root.ID, "@carol"); n != 1 {
		t.Errorf("another reader's question: %d answers, want 1", n)
	}
	a.checkCalls()
}
