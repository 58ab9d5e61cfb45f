package handlers

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/render"
)

// threads are the review comments that open a thread on acme/shop#7, by "path:line".
func (a *app) threads() map[string]int {
	out := map[string]int{}
	for _, c := range a.gh.ReviewCommentsOn("acme/shop#7") {
		if c.InReplyTo == 0 {
			out[fmt.Sprintf("%s:%d", c.Path, c.Line)]++
		}
	}
	return out
}

// The first push gets one review with the findings of substance on their lines; a second push
// that changes one file (fixing the query at line 30) gets no repeated comment, and the thread
// on the fixed line is answered "resolved in def4567"; a full /debate after it repeats nothing.
func TestInlineReviewAcrossPushes(t *testing.T) {
	a := newApp(t)
	a.gh.Contents["acme/shop@main:.github/debatebot.yml"] = "review_event: request_changes\n"
	a.post("pull_request", "d-1", fixture(t, "pull_request.opened.json", nil), secret)
	a.srv.Queue.Wait()
	reviews := a.gh.ReviewsOn("acme/shop#7")
	first := a.threads()
	t.Logf("first push: %d review(s), %d comment(s) on lines: %v", len(reviews), len(a.gh.ReviewCommentsOn("acme/shop#7")), first)
	if len(reviews) != 1 || reviews[0].State != "CHANGES_REQUESTED" || reviews[0].CommitID != "abc123" {
		t.Fatalf("reviews after the first push = %+v, want one requesting changes on abc123", reviews)
	}
	if first["internal/export/users.go:30"] != 1 || first["internal/export/users.go:47"] != 1 || len(first) != 2 {
		t.Fatalf("comments on lines = %v, want the SQL injection at :30 and the two findings at :47 in one comment", first)
	}
	// The summary links the required changes to their lines at the head.
	tr := a.comments(render.TranscriptMarker)
	if len(tr) != 1 || !strings.Contains(tr[0].Body, "- [ ] [`internal/export/users.go:30`](https://github.com/acme/shop/blob/abc123/internal/export/users.go#L30) use a parameterised query") {
		t.Errorf("summary lacks the linked required change:\n%s", tr[0].Body[:min(len(tr[0].Body), 1500)])
	}

	// The second push changes users.go only: the query at line 30 is fixed.
	a.gh.SetHead("acme/shop#7", "def4567890")
	a.gh.Compares["acme/shop@abc123...def4567890"] = []map[string]any{
		{"filename": "internal/export/users.go", "status": "modified", "patch": "@@ -29,3 +29,3 @@ func (h *Handler) Users(w http.ResponseWriter, r *http.Request) {\n \tcountry := r.URL.Query().Get(\"country\")\n-\tquery := fmt.Sprintf(\"SELECT id, email FROM users WHERE country = '%s' ORDER BY id\", country)\n-\trows, err := h.db.Query(query)\n+\tconst query = \"SELECT id, email FROM users WHERE country = $1 ORDER BY id\"\n+\trows, err := h.db.Query(query, country)"},
	}
	pr := a.gh.PRs["acme/shop#7"]
	pr.Diff = strings.Replace(strings.Replace(pr.Diff,
		"+\tquery := fmt.Sprintf(\"SELECT id, email FROM users WHERE country = '%s' ORDER BY id\", country)", "+\tconst query = \"SELECT id, email FROM users WHERE country = $1 ORDER BY id\"", 1),
		"+\trows, err := h.db.Query(query)", "+\trows, err := h.db.Query(query, country)", 1)
	sync := fixture(t, "pull_request.synchronize.json", func(p map[string]any) {
		p["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = "def4567890"
	})
	a.post("pull_request", "d-2", sync, secret)
	a.srv.Queue.Wait()
	second := a.threads()
	var replies []githubtest.ReviewComment
	for _, c := range a.gh.ReviewCommentsOn("acme/shop#7") {
		if c.InReplyTo != 0 {
			replies = append(replies, c)
		}
	}
	t.Logf("second push: %d review(s), %d new comment(s) on lines, %d thread(s) answered", len(a.gh.ReviewsOn("acme/shop#7")), sum(second)-sum(first), len(replies))
	if sum(second) != sum(first) || len(a.gh.ReviewsOn("acme/shop#7")) != 1 {
		t.Errorf("after the second push: comments %v, %d reviews; want nothing repeated and no new review", second, len(a.gh.ReviewsOn("acme/shop#7")))
	}
	if len(replies) != 1 || replies[0].Line != 30 || !strings.HasPrefix(replies[0].Body, "Resolved in `def4567`") {
		t.Errorf("replies = %+v, want the thread at :30 answered resolved in def4567", replies)
	}

	// A full debate of the new head (a command): everything it finds was already commented.
	a.post("issue_comment", "d-3", commentFixture(t, "alice", "/debate"), secret)
	a.srv.Queue.Wait()
	if third := a.threads(); sum(third) != sum(first) {
		t.Errorf("a full debate repeated comments: %v", third)
	}
	if n := len(a.gh.ReviewCommentsOn("acme/shop#7")) - sum(first); n != 1 {
		t.Errorf("%d replies after the full debate, want the one resolution only", n)
	}
	a.checkCalls()
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// /help and /debate help are answered by one comment each, for anyone: the commands, who may
// use them by the repository's configuration, and its protocol and panel; no debate runs.
func TestHelpAnswersWithCommandsAndConfiguration(t *testing.T) {
	a := newApp(t)
	a.gh.Contents["acme/shop@main:.github/debatebot.yml"] = "protocol: extended\ncommand_permission: maintain\nstakeholders:\n  - name: security\n  - name: core_maintainer\n"
	a.post("issue_comment", "d-h1", commentFixture(t, "mallory", "/help"), secret)
	a.srv.Queue.Wait()
	a.post("issue_comment", "d-h2", commentFixture(t, "alice", "/debate help"), secret)
	a.srv.Queue.Wait()
	all := a.gh.CommentsOn("acme/shop#7")
	if len(all) != 2 {
		t.Fatalf("%d comments, want one answer to each command", len(all))
	}
	for _, c := range all {
		for _, want := range []string{
			"**debatebot commands** on this pull request",
			"| `/debate [fast-track\\|standard\\|extended]` | debates the pull request's head again, whole, with the protocol named or the configured one | `maintain` permission or more; at most 5 per hour",
			"| `/human-review` | stops the debates, publishes what was said, and leaves the decision to a human | `write` permission or more |",
			"| `/help`, `/debate help` | this answer | anyone; by comment 2 times an hour per person, then by a reaction |",
			"**Configuration** (`.github/debatebot.yml` on `main`, defaults where it is silent)",
			"- Protocol: **extended**: Evidence Gathering → Opening Arguments",
			"- Checkpoints: after each round",
			"- Panel: the `stakeholders:` list, security (stakeholder), core_maintainer (core maintainer)",
		} {
			if !strings.Contains(c.Body, want) {
				t.Errorf("help lacks %q:\n%s", want, c.Body)
			}
		}
	}
	if len(a.gh.Checks("acme/shop")) != 0 || len(a.gh.ReviewsOn("acme/shop#7")) != 0 {
		t.Error("/help started a debate")
	}
	for _, c := range a.gh.Calls() {
		if c.Method == http.MethodGet && strings.Contains(c.Path, "/permission") {
			t.Errorf("/help asked for a permission: anyone may ask")
		}
	}
	a.checkCalls()
}

// With a broken configuration, /help says so and shows the defaults commands are judged by.
func TestHelpWithBrokenConfiguration(t *testing.T) {
	a := newApp(t)
	a.gh.Contents["acme/shop@main:.github/debatebot.yml"] = "protocol: standard\nthreshold: 0.5\n"
	a.post("issue_comment", "d-h", commentFixture(t, "alice", "/help"), secret)
	a.srv.Queue.Wait()
	all := a.gh.CommentsOn("acme/shop#7")
	if len(all) != 1 || !strings.Contains(all[0].Body, "is not valid (line 2: unknown key \"threshold\"") || !strings.Contains(all[0].Body, "- Panel: the moderator seats 2 to 4 of security, performance, architecture, maintainability") {
		t.Fatalf("comments = %+v", all)
	}
}
