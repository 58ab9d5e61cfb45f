package publish

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/review/reviewtest"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// exampleTranscript debates the bundled example as the head abc123 of acme/shop#7.
func exampleTranscript(t testing.TB) *toulmin.Transcript {
	t.Helper()
	tr := reviewtest.RunDebate(t, reviewtest.ReadChange(t, filepath.Join("..", "..", "examples", "admin-export.diff")), toulmin.ProtocolStandard)
	tr.Record.HeadSHA = "abc123"
	return tr
}

// reviewBodies are the comments posted with the reviews, by "path:line".
func reviewComments(srv *githubtest.Server) map[string][]string {
	out := map[string][]string{}
	for _, c := range srv.ReviewCommentsOn("acme/shop#7") {
		if c.InReplyTo == 0 {
			key := toulmin.Cite(c.Path, c.Line)
			out[key] = append(out[key], c.Body)
		}
	}
	return out
}

func TestReviewPostsFindingsOnTheirLinesOnce(t *testing.T) {
	srv := githubtest.New(t)
	reviewtest.SeedExamplePR(t, srv, filepath.Join("..", "..", "examples", "admin-export.diff"))
	p := NewPublisher(reviewtest.GitHubClient(t, srv), reviewtest.ExamplePR)
	tr := exampleTranscript(t)
	res, err := p.Review(context.Background(), tr, ReviewOptions{Event: ReviewEventRequestChanges})
	if err != nil {
		t.Fatal(err)
	}
	reviews := srv.ReviewsOn("acme/shop#7")
	if len(reviews) != 1 || reviews[0].State != "CHANGES_REQUESTED" || reviews[0].CommitID != "abc123" {
		t.Fatalf("reviews = %+v, want one requesting changes on abc123", reviews)
	}
	got := reviewComments(srv)
	t.Logf("first push: %d comment(s) on lines, %d in the body: %v", res.Posted, res.Body, githubtest.Keys(got))
	if res.Posted != 3 || len(got["internal/export/users.go:30"]) != 1 || len(got["internal/export/users.go:47"]) != 1 {
		t.Fatalf("comments = %v (posted %d), want the SQL injection at :30 and the two findings at :47 in one comment", githubtest.Keys(got), res.Posted)
	}
	// The two findings of line 47 are one comment, each with its own required change and marker.
	at47 := got["internal/export/users.go:47"][0]
	ie, io := strings.Index(at47, "(`ignored-error`)"), strings.Index(at47, "(`io-call-in-loop`)")
	handle, batch := strings.Index(at47, "**Required change:** handle the error"), strings.Index(at47, "**Required change:** fetch in one batched query")
	if ie < 0 || io < 0 || handle < 0 || batch < 0 || strings.Count(at47, "<!-- debatebot:finding ") != 2 {
		t.Fatalf("comment at :47 lacks a finding, its required change or its marker:\n%s", at47)
	}
	if (ie < io) != (handle < batch) || (ie < io && handle > io) || (io < ie && batch > ie) {
		t.Errorf("a required change is under another finding:\n%s", at47)
	}
	sql := got["internal/export/users.go:30"][0]
	for _, want := range []string{"**high · SQL built from strings", "**Required change:** use a parameterised query", "<!-- debatebot:finding "} {
		if !strings.Contains(sql, want) {
			t.Errorf("comment at :30 lacks %q:\n%s", want, sql)
		}
	}
	if strings.Contains(sql, "```suggestion") {
		t.Errorf("a suggestion without a known fix:\n%s", sql)
	}
	// The untested change is about a whole file: in the body, not on a line.
	if !strings.Contains(reviews[0].Body, "Not on a line of the diff:\n\n- `internal/export/users.go`: 3 source file(s) changed") {
		t.Errorf("review body lacks the finding without a line:\n%s", reviews[0].Body)
	}

	// The same debate again (a retry, or a new push that left these lines as they were): nothing
	// is repeated, no empty review is posted.
	res, err = p.Review(context.Background(), tr, ReviewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Posted != 0 || res.Repeated != 3 || len(srv.ReviewsOn("acme/shop#7")) != 1 {
		t.Errorf("second review: %+v, %d reviews; want nothing posted and three repeats", res, len(srv.ReviewsOn("acme/shop#7")))
	}
	lists := 0
	for _, c := range srv.Calls() {
		if c.Operation == "pulls/list-review-comments" {
			lists++
		}
	}
	if lists != 2 {
		t.Errorf("listed review comments %d times, want once per review", lists)
	}
}

// A comment on a line outside the diff makes GitHub refuse the whole review with 422: the
// finding moves to the review's body and the review is posted.
func TestReviewMovesLinesOutsideTheDiffToTheBody(t *testing.T) {
	srv := githubtest.New(t)
	reviewtest.SeedExamplePR(t, srv, filepath.Join("..", "..", "examples", "admin-export.diff"))
	// The pull request's diff on GitHub covers users.go's lines 1-40 only.
	var patch strings.Builder
	patch.WriteString("@@ -0,0 +1,40 @@\n")
	for i := 0; i < 40; i++ {
		patch.WriteString("+x\n")
	}
	srv.PRs["acme/shop#7"].Files = []map[string]any{{"filename": "internal/export/users.go", "status": "added", "patch": patch.String()}}
	p := NewPublisher(reviewtest.GitHubClient(t, srv), reviewtest.ExamplePR)
	res, err := p.Review(context.Background(), exampleTranscript(t), ReviewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Posted != 1 || res.Moved != 2 {
		t.Errorf("result %+v, want one comment on its line and two moved", res)
	}
	refused := 0
	for _, c := range srv.Calls() {
		if c.Operation == "pulls/create-review" {
			refused++
		}
	}
	if refused != 2 {
		t.Errorf("%d review requests, want the refused one and the one posted", refused)
	}
	reviews := srv.ReviewsOn("acme/shop#7")
	if len(reviews) != 1 || reviews[0].State != "COMMENTED" || !strings.Contains(reviews[0].Body, "- `internal/export/users.go:47`: ") {
		t.Fatalf("reviews = %+v", reviews)
	}
	if got := reviewComments(srv); len(got) != 1 || len(got["internal/export/users.go:30"]) != 1 {
		t.Errorf("comments = %v", githubtest.Keys(got))
	}
}

// GitHub's refusal as the fake answers it: 422, "Unprocessable Entity", the reason in errors[].
func TestFakeRefusesReviewCommentOutsideTheDiff(t *testing.T) {
	srv := githubtest.New(t)
	reviewtest.SeedExamplePR(t, srv, filepath.Join("..", "..", "examples", "admin-export.diff"))
	gh := reviewtest.GitHubClient(t, srv)
	req, _ := gh.NewRequest(http.MethodPost, "repos/acme/shop/pulls/7/reviews", map[string]any{"event": "COMMENT", "body": "b",
		"comments": []any{map[string]any{"path": "go.mod", "line": 1, "side": "RIGHT", "body": "x"}}})
	resp, err := gh.BareDo(context.Background(), req)
	if err == nil || resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("err %v, want 422", err)
	}
	if !strings.Contains(err.Error(), "Pull request review thread line must be part of the diff") {
		t.Errorf("error = %v", err)
	}
	if len(srv.ReviewsOn("acme/shop#7")) != 0 {
		t.Error("a refused review was kept")
	}
}

// A debate of what changed since the reviewed head answers the threads whose line it changed and
// whose finding is gone, once; threads on lines it did not touch stay open.
func TestReviewAnswersResolvedThreads(t *testing.T) {
	srv := githubtest.New(t)
	reviewtest.SeedExamplePR(t, srv, filepath.Join("..", "..", "examples", "admin-export.diff"))
	p := NewPublisher(reviewtest.GitHubClient(t, srv), reviewtest.ExamplePR)
	if _, err := p.Review(context.Background(), exampleTranscript(t), ReviewOptions{}); err != nil {
		t.Fatal(err)
	}
	// The new head def456 rewrites lines 30-31 of users.go.
	since := reviewtest.MustParse(t, "diff --git a/internal/export/users.go b/internal/export/users.go\n--- a/internal/export/users.go\n+++ b/internal/export/users.go\n"+
		"@@ -29,3 +29,3 @@\n \tcountry := r.URL.Query().Get(\"country\")\n-\tquery := fmt.Sprintf(\"x%s\", country)\n-\trows, err := h.db.Query(query)\n+\tconst query = \"SELECT $1\"\n+\trows, err := h.db.Query(query, country)\n")
	srv.SetHead("acme/shop#7", "def456")
	next := exampleTranscript(t)
	next.Record.HeadSHA, next.Record.RequiredChanges = "def456", nil
	next.Evidence = nil // the debate of the two lines found nothing
	for i := 0; i < 2; i++ {
		res, err := NewPublisher(reviewtest.GitHubClient(t, srv), reviewtest.ExamplePR).Review(context.Background(), next, ReviewOptions{Change: since, Since: "abc123"})
		if err != nil {
			t.Fatal(err)
		}
		if want := 1 - i; res.Resolved != want || res.Posted != 0 {
			t.Errorf("review %d: %+v, want %d thread(s) answered and nothing posted", i+1, res, want)
		}
	}
	var replies []githubtest.ReviewComment
	for _, c := range srv.ReviewCommentsOn("acme/shop#7") {
		if c.InReplyTo != 0 {
			replies = append(replies, c)
		}
	}
	if len(replies) != 1 || replies[0].Path != "internal/export/users.go" || replies[0].Line != 30 || !strings.HasPrefix(replies[0].Body, "Resolved in `def456`") {
		t.Fatalf("replies = %+v, want one on the thread at users.go:30", replies)
	}
	if len(srv.ReviewsOn("acme/shop#7")) != 1 {
		t.Errorf("a review without anything new was posted")
	}
}

// Only the bot's own comments count: a user's comment carrying a marker neither hides a finding
// nor gets answered.
func TestReviewIgnoresMarkersOfOthers(t *testing.T) {
	srv := githubtest.New(t)
	reviewtest.SeedExamplePR(t, srv, filepath.Join("..", "..", "examples", "admin-export.diff"))
	tr := exampleTranscript(t)
	on, _ := render.InlineFindings(tr)
	srv.AddReviewComment("acme/shop#7", "mallory", on[0].Path, on[0].Line, "<!-- debatebot:finding "+on[0].Key+" -->")
	res, err := NewPublisher(reviewtest.GitHubClient(t, srv), reviewtest.ExamplePR).Review(context.Background(), tr, ReviewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Posted != len(on) || res.Repeated != 0 {
		t.Errorf("%+v: a user's marker hid a finding", res)
	}
}

// A finding whose fix the analyzer knows carries it as a suggestion of the whole line.
func TestReviewSuggestsKnownFix(t *testing.T) {
	c := reviewtest.ChangeOf(t, map[string]string{"client.py": "import requests\n\ndef fetch(url):\n    return requests.get(url, verify=False, timeout=5)\n"})
	ev := reviewtest.Gather(t, c)
	var e *toulmin.Evidence
	for i := range ev {
		if ev[i].Rule == rules.RuleTLSVerifyOff {
			e = &ev[i]
		}
	}
	if e == nil {
		t.Fatalf("no TLS finding in %s", reviewtest.Dump(ev))
	}
	if e.Replacement != "    return requests.get(url, verify=True, timeout=5)" {
		t.Fatalf("replacement = %q", e.Replacement)
	}
	body := render.InlineFinding{Key: "0123456789abcdef:1", Evidence: *e}.CommentBody()
	if !strings.Contains(body, "\n```suggestion\n    return requests.get(url, verify=True, timeout=5)\n```\n") {
		t.Errorf("comment lacks the suggestion:\n%s", body)
	}
}

// The bot's earlier comments are found on every page of the review comments (GitHub's Link
// header): a finding commented on page two is not repeated.
func TestReviewReadsEveryPageOfComments(t *testing.T) {
	srv := githubtest.New(t)
	reviewtest.SeedExamplePR(t, srv, filepath.Join("..", "..", "examples", "admin-export.diff"))
	tr := exampleTranscript(t)
	for i := 0; i < 150; i++ {
		srv.AddReviewComment("acme/shop#7", "octocat", "internal/export/users.go", 10, "a human's remark")
	}
	on, _ := render.InlineFindings(tr)
	for _, f := range on {
		srv.AddReviewComment("acme/shop#7", "debatebot[bot]", f.Path, f.Line, f.CommentBody())
	}
	p := NewPublisher(reviewtest.GitHubClient(t, srv), reviewtest.ExamplePR)
	p.Bot = "debatebot[bot]"
	res, err := p.Review(context.Background(), tr, ReviewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Posted != 0 || res.Repeated != len(on) {
		t.Errorf("%+v: comments on the second page were not seen", res)
	}
	pages := 0
	for _, c := range srv.Calls() {
		if c.Operation == "pulls/list-review-comments" {
			pages++
		}
	}
	if pages != 2 {
		t.Errorf("%d pages read, want 2 (153 comments, 100 a page)", pages)
	}
}

// With the debated change being the pull request's diff, a finding outside its hunks goes to the
// body before GitHub is asked: one review, no 422, no files read.
func TestReviewKeepsLinesOutsideTheChangesHunksInTheBody(t *testing.T) {
	srv := githubtest.New(t)
	reviewtest.SeedExamplePR(t, srv, filepath.Join("..", "..", "examples", "admin-export.diff"))
	var patch strings.Builder
	patch.WriteString("@@ -0,0 +1,40 @@\n")
	for i := 0; i < 40; i++ {
		patch.WriteString("+x\n")
	}
	srv.PRs["acme/shop#7"].Files = []map[string]any{{"filename": "internal/export/users.go", "status": "added", "patch": patch.String()}}
	change, err := review.ParseDiff([]byte("diff --git a/internal/export/users.go b/internal/export/users.go\nnew file mode 100644\n--- /dev/null\n+++ b/internal/export/users.go\n"+patch.String()), "pr")
	if err != nil {
		t.Fatal(err)
	}
	p := NewPublisher(reviewtest.GitHubClient(t, srv), reviewtest.ExamplePR)
	res, err := p.Review(context.Background(), exampleTranscript(t), ReviewOptions{Change: change})
	if err != nil {
		t.Fatal(err)
	}
	if res.Posted != 1 || res.Body < 2 || res.Moved != 0 {
		t.Errorf("result %+v, want one comment on its line and the two others in the body, none refused", res)
	}
	reviews := 0
	for _, c := range srv.Calls() {
		if c.Operation == "pulls/list-files" {
			t.Errorf("the diff's lines were read from GitHub: %s %s", c.Method, c.Path)
		}
		if c.Operation == "pulls/create-review" {
			reviews++
		}
	}
	if reviews != 1 {
		t.Errorf("%d review requests, want the one posted at once", reviews)
	}
}

// A debate that no longer requests changes dismisses the bot's earlier request for changes,
// which would otherwise keep blocking the merge; a person's request for changes stays.
func TestReviewDismissesTheBotsEarlierBlock(t *testing.T) {
	srv := githubtest.New(t)
	reviewtest.SeedExamplePR(t, srv, filepath.Join("..", "..", "examples", "admin-export.diff"))
	p := NewPublisher(reviewtest.GitHubClient(t, srv), reviewtest.ExamplePR)
	if _, err := p.Review(context.Background(), exampleTranscript(t), ReviewOptions{Event: ReviewEventRequestChanges}); err != nil {
		t.Fatal(err)
	}
	srv.Reviews["acme/shop#7"] = append(srv.Reviews["acme/shop#7"], &githubtest.Review{ID: 9000, User: "carol", State: "CHANGES_REQUESTED", CommitID: "abc123"})

	// Still requesting changes: the block stays.
	if _, err := p.Review(context.Background(), exampleTranscript(t), ReviewOptions{Event: ReviewEventRequestChanges}); err != nil {
		t.Fatal(err)
	}
	if got := srv.ReviewsOn("acme/shop#7"); got[0].State != "CHANGES_REQUESTED" {
		t.Fatalf("a debate still requesting changes dismissed its block: %+v", got)
	}

	better := exampleTranscript(t)
	better.Record.Decision = voting.ApproveWithChanges
	if _, err := p.Review(context.Background(), better, ReviewOptions{Event: ReviewEventRequestChanges}); err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.ReviewsOn("acme/shop#7") {
		switch {
		case r.User == "carol" && r.State != "CHANGES_REQUESTED":
			t.Errorf("a person's review was dismissed: %+v", r)
		case r.User != "carol" && r.State == "CHANGES_REQUESTED":
			t.Errorf("the bot's block stands after a debate approving with changes: %+v", r)
		case r.User != "carol" && r.ID == srv.ReviewsOn("acme/shop#7")[0].ID && !strings.Contains(r.Dismissal, "decided: Approve with changes"):
			t.Errorf("dismissal message %q", r.Dismissal)
		}
	}
}

// The check run annotates only the findings that have no review comment: after the review, the
// same publisher knows which it posted; a later publisher (a retried job, the review posted
// before) finds them among the pull request's review comments.
func TestAnnotationsLeaveOutFindingsWithAComment(t *testing.T) {
	srv := githubtest.New(t)
	reviewtest.SeedExamplePR(t, srv, filepath.Join("..", "..", "examples", "admin-export.diff"))
	ctx := context.Background()
	tr := exampleTranscript(t)
	annotated := func(p *Publisher) map[string]bool {
		t.Helper()
		if err := p.StartCheck(ctx, "abc123"); err != nil {
			t.Fatal(err)
		}
		if err := p.FinishCheck(ctx, tr); err != nil {
			t.Fatal(err)
		}
		runs := srv.Checks("acme/shop")
		out := map[string]bool{}
		for _, an := range runs[len(runs)-1].Annotations {
			out[toulmin.Cite(an.Path, an.StartLine)+" "+an.Title] = true
		}
		return out
	}
	p := NewPublisher(reviewtest.GitHubClient(t, srv), reviewtest.ExamplePR)
	if _, err := p.Review(ctx, tr, ReviewOptions{}); err != nil {
		t.Fatal(err)
	}
	first := annotated(p)
	later := annotated(NewPublisher(reviewtest.GitHubClient(t, srv), reviewtest.ExamplePR))
	for _, got := range []map[string]bool{first, later} {
		t.Logf("annotations: %v", githubtest.Keys(got))
		for key := range got {
			if strings.HasPrefix(key, "internal/export/users.go:30 ") || strings.HasPrefix(key, "internal/export/users.go:47 ") {
				t.Errorf("annotation %q repeats a review comment", key)
			}
		}
		for _, want := range []string{"go.mod:7 New dependency (new-dependency)", "internal/export/users.go:1 "} {
			found := false
			for key := range got {
				found = found || strings.HasPrefix(key, want)
			}
			if !found {
				t.Errorf("no annotation %q among %v", want, githubtest.Keys(got))
			}
		}
	}
}
