package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review/converse"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/llmtest"
)

// busyComments is how many review comments people left on the busy pull request before the bot's
// review: threads of their own and replies in them.
const busyComments = 250

// busyReviewed is the App after the first review of the example pull request made busy: an hour
// before the review, people left busyComments review comments (one thread in five answered
// once). It returns the bot's review comment on the SQL injection at internal/export/users.go:30
// and the people's first thread.
func busyReviewed(t *testing.T, edit func(*config.Server)) (*app, githubtest.ReviewComment, int64) {
	t.Helper()
	a := newAppWith(t, edit)
	earlier := time.Now().Add(-time.Hour)
	a.gh.SetClock(func() time.Time { return earlier })
	var first, open int64
	for i := 0; i < busyComments; i++ {
		if i%5 == 4 {
			a.gh.AddReply(examplePR, "carol", open, fmt.Sprintf("Agreed on %d.", i))
			continue
		}
		open = a.gh.AddReviewComment(examplePR, "bob", "internal/export/users.go", 10+i%20, fmt.Sprintf("Nit %d: could this be shorter?", i))
		if first == 0 {
			first = open
		}
	}
	a.gh.SetClock(nil)
	a.post("pull_request", "d-open", fixture(t, "pull_request.opened.json", nil), secret)
	a.srv.Queue.Wait()
	for _, c := range a.gh.ReviewCommentsOn(examplePR) {
		if c.InReplyTo == 0 && c.User == "debatebot[bot]" && c.Path == "internal/export/users.go" && c.Line == 30 {
			return a, c, first
		}
	}
	t.Fatalf("no review comment of the bot at internal/export/users.go:30")
	return nil, githubtest.ReviewComment{}, 0
}

// requestsFor are the requests to GitHub the delivery of the reply makes, by operation (the
// installation's token, whose reading does not depend on the reply, left out).
func (a *app) requestsFor(t *testing.T, deliver func()) []githubtest.Call {
	t.Helper()
	before := len(a.gh.Calls())
	deliver()
	var out []githubtest.Call
	for _, c := range a.gh.Calls()[before:] {
		if c.Operation != "apps/create-installation-access-token" {
			out = append(out, c)
		}
	}
	return out
}

func operations(calls []githubtest.Call) map[string]int {
	out := map[string]int{}
	for _, c := range calls {
		out[c.Operation]++
	}
	return out
}

// On a pull request with 250 review comments, a reply in a thread the bot did not open (new or
// older than the bot's review), or in the bot's thread that names no finding, or to a comment
// deleted since, or naming as its thread the bot's comment on another pull request, costs one
// request, the root's, and is answered with nothing.
func TestReplyOutsideTheBotsThreadsCostsOneRequest(t *testing.T) {
	a, bots, older := busyReviewed(t, nil)
	note := a.gh.AddReviewComment(examplePR, "debatebot[bot]", "internal/export/users.go", 12, "A note that names no finding.")
	// The bot's comment on findings of another pull request of the repository, which a delivery
	// of this one names as the comment replied to.
	elsewhere := a.gh.AddReviewComment("acme/shop#8", "debatebot[bot]", "internal/export/users.go", 30, bots.Body)
	gone := a.gh.AddReviewComment(examplePR, "bob", "internal/export/users.go", 14, "Deleted in a moment.")
	for _, tc := range []struct {
		name string
		root int64
	}{
		{"a new thread of a person", a.gh.AddReviewComment(examplePR, "bob", "internal/export/users.go", 30, "Could we name this exportUsers?")},
		{"an older thread of a person", older},
		{"the bot's note without a finding", note},
		{"a deleted comment", gone},
		{"the bot's comment on another pull request", elsewhere},
	} {
		delivery := fmt.Sprintf("r-%d", tc.root)
		t.Run(tc.name, func(t *testing.T) {
			if tc.root == elsewhere {
				reply := a.gh.AddReply(examplePR, "alice", note, "false positive: why would this matter?")
				payload := a.gh.ReviewCommentEvent(examplePR, reply, "created", 42)
				payload["comment"].(map[string]any)["in_reply_to_id"] = elsewhere
				body, err := json.Marshal(payload)
				if err != nil {
					t.Fatal(err)
				}
				calls := a.requestsFor(t, func() {
					if status := a.post("pull_request_review_comment", delivery, body, secret); status >= 300 {
						t.Fatalf("the delivery was answered %d", status)
					}
					a.srv.Queue.Wait()
				})
				if len(calls) != 1 || len(a.gh.ReactionsOn(reply)) != 0 || len(a.botReplies(note)) != 0 {
					t.Errorf("a reply naming another pull request's comment cost %d request(s) %v, or was answered", len(calls), operations(calls))
				}
				return
			}
			reply := a.gh.AddReply(examplePR, "alice", tc.root, "false positive: why would this matter?")
			if tc.root == gone {
				a.gh.DeleteReviewComment(examplePR, gone)
			}
			calls := a.requestsFor(t, func() { a.deliverReply(t, reply, delivery) })
			want := fmt.Sprintf("/repos/acme/shop/pulls/comments/%d", tc.root)
			t.Logf("requests for a reply in %s: %d (%v)", tc.name, len(calls), operations(calls))
			if len(calls) != 1 || calls[0].Method != http.MethodGet || calls[0].Path != want {
				t.Errorf("the reply cost %d request(s) %v, want one: GET %s", len(calls), operations(calls), want)
			}
			if got := a.botReplies(tc.root); len(got) != 0 {
				t.Errorf("the bot answered: %+v", got)
			}
			if got := a.gh.ReactionsOn(reply); len(got) != 0 {
				t.Errorf("the bot reacted: %v", got)
			}
		})
	}
	if kept, _ := a.srv.Store.Dismissals(t.Context(), []string{"acme/shop"}); len(kept) != 0 {
		t.Errorf("replies outside the bot's threads dismissed %+v", kept)
	}
	a.checkCalls()
}

// On a pull request with 250 review comments older than the bot's, a question in the bot's
// thread reads the root and one page of the comments since the thread opened, and is answered
// as before: the model reads the thread in order (an earlier question and the bot's answer
// included, a comment edited since the thread opened too, nothing after the question), and a
// redelivery answers nothing twice.
func TestReplyInTheBotsThreadReadsOnlyTheThreadsTime(t *testing.T) {
	const answer = "The query splices `country` into the SQL text."
	llm := llmtest.New(t, func(n int, r *llmtest.Request) llmtest.Response {
		if r.ResponseFormat.JSONSchema.Name == "" {
			return llmtest.Response{Content: answer}
		}
		return llmtest.Valid(n, r)
	})
	a, root, older := busyReviewed(t, func(c *config.Server) { c.OpenAIKey, c.OpenAIBaseURL, c.Model = "sk-test", llm.BaseURL(), "gpt-test" })
	a.gh.EditReviewComment(examplePR, older, "Nit 0, edited after the review.")
	a.replyTo(t, root.ID, "carol", "Is the country not checked by the router?", "r-carol")
	if n := len(a.botReplies(root.ID)); n != 1 {
		t.Fatalf("the bot answered carol %d times", n)
	}

	calls := a.requestsFor(t, func() { a.replyTo(t, root.ID, "mallory", "Why is this a problem? (mallory)", "r-mallory") })
	ops := operations(calls)
	t.Logf("requests for a question in the bot's thread: %v", ops)
	if ops["pulls/get-review-comment"] != 1 || ops["pulls/list-review-comments"] != 1 {
		t.Errorf("reading the thread took %d read(s) of the root and %d page(s) of the list, want 1 and 1", ops["pulls/get-review-comment"], ops["pulls/list-review-comments"])
	}
	for _, c := range calls {
		if c.Operation != "pulls/list-review-comments" {
			continue
		}
		q, _ := url.ParseQuery(c.Query)
		if q.Get("since") != root.Created.Format(time.RFC3339) || q.Get("sort") != "created" || q.Get("direction") != "asc" || q.Get("per_page") != "100" {
			t.Errorf("the list was asked %q, want the comments since the root's %s, oldest first, 100 a page", c.Query, root.Created.Format(time.RFC3339))
		}
	}
	answers := a.botReplies(root.ID)
	if len(answers) != 2 || !strings.Contains(answers[1].Body, answer) || !strings.Contains(answers[1].Body, "@mallory") {
		t.Fatalf("the bot's answers in its thread: %+v", answers)
	}
	thread := lastThreadFence(t, llm)
	order := []string{"@debatebot[bot]", "Is the country not checked by the router?", answer, "Why is this a problem? (mallory)"}
	at := 0
	for _, want := range order {
		i := strings.Index(thread[at:], want)
		if i < 0 {
			t.Fatalf("the thread the model read lacks %q after what came before it:\n%s", want, thread)
		}
		at += i + len(want)
	}
	if strings.Contains(thread, "Nit ") {
		t.Errorf("the thread the model read holds comments of other threads:\n%s", thread)
	}

	// A job run again after its answer was posted (the answer's request failed on the way back)
	// finds the answer in the thread and posts nothing, after the same two reads.
	again := a.gh.AddReply(examplePR, "mallory", root.ID, "And what would the fix be?")
	a.gh.AddReply(examplePR, "debatebot[bot]", root.ID, "@mallory Use placeholders.\n\n"+converse.ReplyMarker(again))
	calls = a.requestsFor(t, func() { a.deliverReply(t, again, "r-mallory-again") })
	if n := len(a.botReplies(root.ID)); n != 3 {
		t.Errorf("a question answered already was answered again: %d answers in the bot's thread, want 3", n)
	}
	if ops := operations(calls); ops["pulls/get-review-comment"] != 1 || ops["pulls/list-review-comments"] != 1 || len(calls) != 2 {
		t.Errorf("the question answered already cost %v, want the root and one page", ops)
	}
	a.checkCalls()
}

// lastThreadFence is the thread of the last question the model was asked.
func lastThreadFence(t *testing.T, llm *llmtest.Server) string {
	t.Helper()
	var last string
	for _, r := range llm.Requests() {
		if r.ResponseFormat.JSONSchema.Name == "" {
			last = r.Last()
		}
	}
	start, end := strings.Index(last, "<<<UNTRUSTED THREAD"), strings.Index(last, "UNTRUSTED THREAD>>>")
	if start < 0 || end < start {
		t.Fatalf("the model was asked no question with a thread:\n%s", last)
	}
	return last[start:end]
}

// A 5xx on reading the root is retried: GitHub failing it more times than the client retries
// fails the job, the queue runs it again, and the question is answered once.
func TestReplyRootReadIsRetried(t *testing.T) {
	a, root := reviewed(t, nil)
	path := fmt.Sprintf("/repos/acme/shop/pulls/comments/%d", root.ID)
	a.gh.FailIf(func(c githubtest.Call) bool { return c.Method == http.MethodGet && c.Path == path }, http.StatusBadGateway, 5)
	calls := a.requestsFor(t, func() { a.replyTo(t, root.ID, "mallory", "Why? The country comes from our own dropdown.", "r-1") })
	if n := operations(calls)["pulls/get-review-comment"]; n != 6 {
		t.Errorf("the root was read %d times, want 5 failures and the read that worked", n)
	}
	if answers := a.botReplies(root.ID); len(answers) != 1 || !strings.Contains(answers[0].Body, "@mallory") {
		t.Fatalf("answers after the retries = %+v", answers)
	}
}
