package githubtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
)

// at is a clock that stands where the test puts it.
type at struct{ now time.Time }

func (c *at) clock() time.Time { return c.now }

// getRaw sends an authenticated GET to the fake and decodes its JSON.
func getRaw(t *testing.T, s *Server, path string) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
	req.Header.Set("Authorization", "token installation-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp, out
}

// One review comment, by its id: the REST shape GitHub gives it (times, links, its thread), and
// GitHub's 404 for an id the repository does not have.
func TestGetReviewComment(t *testing.T) {
	s := New(t)
	s.PRs["acme/shop#7"] = &PR{HeadSHA: "abc123", BaseRef: "main", HeadRef: "x"}
	s.PRs["acme/other#1"] = &PR{HeadSHA: "def456", BaseRef: "main", HeadRef: "y"}
	clock := &at{now: time.Date(2026, 3, 1, 9, 30, 15, 500, time.UTC)}
	s.SetClock(clock.clock)
	root := s.AddReviewComment("acme/shop#7", "debatebot[bot]", "main.go", 12, "A finding.")
	clock.now = clock.now.Add(time.Minute)
	reply := s.AddReply("acme/shop#7", "alice", root, "Why?")
	elsewhere := s.AddReviewComment("acme/other#1", "bob", "x.go", 1, "Elsewhere.")
	ctx, gh := context.Background(), client(t, s)

	c, _, err := gh.PullRequests.GetComment(ctx, "acme", "shop", reply)
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 3, 1, 9, 31, 15, 0, time.UTC)
	if c.GetID() != reply || c.GetInReplyTo() != root || c.GetUser().GetLogin() != "alice" || c.GetBody() != "Why?" || c.GetPath() != "main.go" ||
		c.GetLine() != 12 || c.GetCommitID() != "abc123" || !c.GetCreatedAt().Time.Equal(want) || !c.GetUpdatedAt().Time.Equal(want) ||
		c.GetPullRequestURL() != s.URL+"/repos/acme/shop/pulls/7" || c.GetHTMLURL() != fmt.Sprintf("https://github.com/acme/shop/pull/7#discussion_r%d", reply) {
		t.Errorf("the reply read back: %+v", c)
	}
	_, raw := getRaw(t, s, fmt.Sprintf("/repos/acme/shop/pulls/comments/%d", root))
	for _, key := range []string{"url", "pull_request_review_id", "id", "node_id", "diff_hunk", "path", "commit_id", "original_commit_id", "user", "body",
		"created_at", "updated_at", "html_url", "pull_request_url", "author_association", "_links", "start_line", "original_start_line", "line", "original_line", "side"} {
		if _, ok := raw[key]; !ok {
			t.Errorf("a review comment lacks %q: %v", key, raw)
		}
	}
	if _, ok := raw["in_reply_to_id"]; ok {
		t.Errorf("the thread's first comment has in_reply_to_id: %v", raw)
	}

	for _, id := range []int64{elsewhere, 999999} {
		resp, body := getRaw(t, s, fmt.Sprintf("/repos/acme/shop/pulls/comments/%d", id))
		if resp.StatusCode != http.StatusNotFound || body["message"] != "Not Found" || body["status"] != "404" ||
			!strings.HasSuffix(fmt.Sprint(body["documentation_url"]), "/rest/pulls/comments#get-a-review-comment-for-a-pull-request") {
			t.Errorf("comment %d of another repository or none: %d %v", id, resp.StatusCode, body)
		}
	}
	if _, _, err := gh.PullRequests.GetComment(ctx, "acme", "shop", 999999); !isStatus(err, http.StatusNotFound) {
		t.Errorf("go-github reads an unknown comment as %v, want a 404", err)
	}
}

func isStatus(err error, status int) bool {
	var e *github.ErrorResponse
	return errors.As(err, &e) && e.Response.StatusCode == status
}

func ids(cs []*github.PullRequestComment) []int64 {
	var out []int64
	for _, c := range cs {
		out = append(out, c.GetID())
	}
	return out
}

// The list of a pull request's review comments as GitHub documents it: since keeps the comments
// updated at or after a time (an old comment edited since included), sort by created or updated
// time, direction only with sort, ascending ids without sort, and refuses values it does not take.
func TestListReviewCommentsSinceSortDirection(t *testing.T) {
	s := New(t)
	s.PRs["acme/shop#7"] = &PR{HeadSHA: "abc123", BaseRef: "main", HeadRef: "x"}
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	clock := &at{now: t0}
	s.SetClock(clock.clock)
	add := func(d time.Duration, user string) int64 {
		clock.now = t0.Add(d)
		return s.AddReviewComment("acme/shop#7", user, "main.go", 1, "comment by "+user)
	}
	// Made out of their ids' order: an id says nothing about the time a test gives a comment.
	a := add(0, "a")
	b := add(2*time.Hour, "b")
	c := add(time.Hour, "c")
	clock.now = t0.Add(3 * time.Hour)
	d := s.AddReply("acme/shop#7", "d", c, "reply to c")
	clock.now = t0.Add(4 * time.Hour)
	s.EditReviewComment("acme/shop#7", a, "edited")
	ctx, gh := context.Background(), client(t, s)
	list := func(opts *github.PullRequestListCommentsOptions) []int64 {
		t.Helper()
		cs, _, err := gh.PullRequests.ListComments(ctx, "acme", "shop", 7, opts)
		if err != nil {
			t.Fatal(err)
		}
		return ids(cs)
	}
	for _, tc := range []struct {
		name string
		opts *github.PullRequestListCommentsOptions
		want []int64
	}{
		{"nothing: ascending ids", nil, []int64{a, b, c, d}},
		{"since an hour: what was made or edited since, in ids' order", &github.PullRequestListCommentsOptions{Since: t0.Add(time.Hour)}, []int64{a, b, c, d}},
		{"since two hours and a second", &github.PullRequestListCommentsOptions{Since: t0.Add(2*time.Hour + time.Second)}, []int64{a, d}},
		{"since the edit: at that second included", &github.PullRequestListCommentsOptions{Since: t0.Add(4 * time.Hour)}, []int64{a}},
		{"since after everything", &github.PullRequestListCommentsOptions{Since: t0.Add(5 * time.Hour)}, nil},
		{"sort created", &github.PullRequestListCommentsOptions{Sort: "created"}, []int64{a, c, b, d}},
		{"sort created, descending", &github.PullRequestListCommentsOptions{Sort: "created", Direction: "desc"}, []int64{d, b, c, a}},
		{"sort updated", &github.PullRequestListCommentsOptions{Sort: "updated", Direction: "asc"}, []int64{c, b, d, a}},
		{"direction without sort is ignored", &github.PullRequestListCommentsOptions{Direction: "desc"}, []int64{a, b, c, d}},
		{"since and sort created", &github.PullRequestListCommentsOptions{Since: t0.Add(time.Hour), Sort: "created", Direction: "asc"}, []int64{a, c, b, d}},
	} {
		if got := list(tc.opts); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	for _, query := range []string{"since=yesterday", "sort=popularity", "sort=created&direction=up"} {
		resp, body := getRaw(t, s, "/repos/acme/shop/pulls/7/comments?"+query)
		if resp.StatusCode != http.StatusUnprocessableEntity || body["message"] != "Validation Failed" {
			t.Errorf("%s answered %d %v, want 422", query, resp.StatusCode, body)
		}
	}
}

// The list pages as GitHub does: per_page up to 100, and a Link header to the previous, next,
// last and first pages that keeps the request's filters.
func TestListReviewCommentsPages(t *testing.T) {
	s := New(t)
	s.PRs["acme/shop#7"] = &PR{HeadSHA: "abc123", BaseRef: "main", HeadRef: "x"}
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	clock := &at{now: t0}
	s.SetClock(clock.clock)
	for i := 0; i < 50; i++ {
		s.AddReviewComment("acme/shop#7", "old", "main.go", 1, "before")
	}
	clock.now = t0.Add(time.Hour)
	var recent []int64
	for i := 0; i < 250; i++ {
		recent = append(recent, s.AddReviewComment("acme/shop#7", "new", "main.go", 1, "after"))
	}
	ctx, gh := context.Background(), client(t, s)
	opts := &github.PullRequestListCommentsOptions{Since: t0.Add(time.Hour), Sort: "created", Direction: "asc", ListOptions: github.ListOptions{PerPage: 100}}
	var got []int64
	var pages []string
	for {
		cs, resp, err := gh.PullRequests.ListComments(ctx, "acme", "shop", 7, opts)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ids(cs)...)
		pages = append(pages, fmt.Sprintf("%d:prev=%d,next=%d,last=%d,first=%d", len(cs), resp.PrevPage, resp.NextPage, resp.LastPage, resp.FirstPage))
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if want := []string{"100:prev=0,next=2,last=3,first=0", "100:prev=1,next=3,last=3,first=1", "50:prev=2,next=0,last=0,first=1"}; !slices.Equal(pages, want) {
		t.Errorf("pages %q, want %q", pages, want)
	}
	if !slices.Equal(got, recent) {
		t.Errorf("the pages since the hour hold %d comments, want the %d made since, in order", len(got), len(recent))
	}
	resp, err := http.NewRequest(http.MethodGet, s.URL+"/repos/acme/shop/pulls/7/comments?since=2026-03-01T10:00:00Z&sort=created&page=2&per_page=100", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Header.Set("Authorization", "token installation-token")
	r, err := http.DefaultClient.Do(resp)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if link := r.Header.Get("Link"); strings.Count(link, "since=2026-03-01T10%3A00%3A00Z") != 4 || strings.Count(link, "sort=created") != 4 {
		t.Errorf("the Link header drops the request's filters: %s", link)
	}
	all, resp2, err := gh.PullRequests.ListComments(ctx, "acme", "shop", 7, &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 500}})
	if err != nil || len(all) != 100 || resp2.NextPage != 2 || resp2.LastPage != 3 {
		t.Errorf("per_page 500 answered %d comments, next %d, last %d (%v); GitHub answers at most 100", len(all), resp2.NextPage, resp2.LastPage, err)
	}
}
