package githubtest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Review is a pull request review, as the reviews API keeps it.
type Review struct {
	ID       int64
	User     string
	Body     string
	CommitID string
	// State is APPROVED, CHANGES_REQUESTED, COMMENTED, PENDING or DISMISSED.
	State string
	// Dismissal is the message a dismissed review was dismissed with.
	Dismissal string
}

// ReviewComment is a comment on a line of a pull request's diff (a review comment), or a reply
// to one (InReplyTo is the thread's first comment).
type ReviewComment struct {
	ID        int64
	ReviewID  int64
	InReplyTo int64
	User      string
	Body      string
	Path      string
	Line      int
	StartLine int
	Side      string
	CommitID  string
	// Created and Updated are when the comment was made and last edited, at GitHub's resolution
	// of a second; the fake stamps them with its clock (SetClock), and EditReviewComment moves
	// Updated. The list operation's since, sort and direction read them.
	Created, Updated time.Time
}

var (
	reReviews       = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)/reviews$`)
	reReviewComment = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)/comments$`)
	reReplies       = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)/comments/(\d+)/replies$`)
	reDismissal     = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)/reviews/(\d+)/dismissals$`)
)

// ReviewsOn returns the reviews of a pull request ("owner/repo#n"), oldest first.
func (s *Server) ReviewsOn(key string) []Review {
	return snapshot(s, func() []*Review { return s.Reviews[key] })
}

// ReviewCommentsOn returns the review comments of a pull request ("owner/repo#n"), oldest first.
func (s *Server) ReviewCommentsOn(key string) []ReviewComment {
	return snapshot(s, func() []*ReviewComment { return s.ReviewComments[key] })
}

// AddReviewComment puts a review comment on a line, as a user would (s.mu not held).
func (s *Server) AddReviewComment(key, user, path string, line int, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	sha := ""
	if pr := s.PRs[key]; pr != nil {
		sha = pr.HeadSHA
	}
	now := s.now()
	s.ReviewComments[key] = append(s.ReviewComments[key], &ReviewComment{ID: s.nextID, User: user, Body: body, Path: path, Line: line, Side: "RIGHT", CommitID: sha,
		Created: now, Updated: now})
	return s.nextID
}

// EditReviewComment changes a review comment's body, as its author would: its updated_at moves
// to the fake's clock, its created_at and its place in the thread stay (s.mu not held).
func (s *Server) EditReviewComment(key string, id int64, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.ReviewComments[key] {
		if c.ID == id {
			c.Body, c.Updated = body, s.now()
			return
		}
	}
	s.t.Fatalf("githubtest: no review comment %d on %s to edit", id, key)
}

// DeleteReviewComment deletes a review comment, as its author would; the replies in its thread
// stay (s.mu not held).
func (s *Server) DeleteReviewComment(key string, id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.ReviewComments[key]
	for i, c := range list {
		if c.ID == id {
			s.ReviewComments[key] = slices.Delete(slices.Clone(list), i, i+1)
			return
		}
	}
	s.t.Fatalf("githubtest: no review comment %d on %s to delete", id, key)
}

// SetClock makes the fake stamp the review comments made from now on with now's times instead
// of the wall clock's (nil goes back to the wall clock): a test backdates a pull request's
// older comments with it.
func (s *Server) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clock = now
}

// now is the fake's clock at GitHub's resolution of a second, in UTC (s.mu held).
func (s *Server) now() time.Time {
	now := time.Now
	if s.clock != nil {
		now = s.clock
	}
	return now().UTC().Truncate(time.Second)
}

// routeReviews answers the reviews and review-comments operations; it reports false for any
// other path (s.mu held).
func (s *Server) routeReviews(w http.ResponseWriter, r *http.Request, path string, body []byte) bool {
	var m []string
	for _, re := range []*regexp.Regexp{reReviews, reReviewComment, reReplies, reDismissal} {
		if m = re.FindStringSubmatch(path); m != nil {
			break
		}
	}
	if m == nil {
		return false
	}
	key := fmt.Sprintf("%s/%s#%s", m[1], m[2], m[3])
	pr, ok := s.PRs[key]
	if !ok {
		s.writeError(w, http.StatusNotFound, "Not Found")
		return true
	}
	switch {
	case reDismissal.MatchString(path) && r.Method == http.MethodPut:
		s.dismiss(w, key, m[4], body)
	case reReplies.MatchString(path) && r.Method == http.MethodPost:
		s.reply(w, key, pr, m[4], body)
	case reReviews.MatchString(path) && r.Method == http.MethodPost:
		s.createReview(w, key, pr, body)
	case reReviews.MatchString(path):
		var list []any
		for _, rv := range s.Reviews[key] {
			list = append(list, s.reviewJSON(key, rv))
		}
		s.paginate(w, r, list)
	case reReviewComment.MatchString(path) && r.Method == http.MethodGet:
		s.listReviewComments(w, r, key)
	default:
		// Creating a single review comment outside a review is a real operation the fake does
		// not hold: the bot posts its comments as one review.
		s.writeError(w, http.StatusNotFound, "Not Found")
	}
	return true
}

// listReviewComments answers the list of a pull request's review comments as GitHub documents
// it: since (ISO 8601) keeps the comments updated at or after that time; sort is created (the
// default) or updated, direction asc or desc and ignored without sort (ascending when sort comes
// without it); without sort the comments are in ascending order of id; then per_page and page
// with the Link header. A value outside these is refused with 422 (s.mu held).
func (s *Server) listReviewComments(w http.ResponseWriter, r *http.Request, key string) {
	q := r.URL.Query()
	var since time.Time
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			s.validationFailed(w, "PullRequestReviewComment", "invalid", "since")
			return
		}
		since = t
	}
	sortBy, direction := q.Get("sort"), q.Get("direction")
	if sortBy != "" && sortBy != "created" && sortBy != "updated" {
		s.validationFailed(w, "PullRequestReviewComment", "invalid", "sort")
		return
	}
	if direction != "" && direction != "asc" && direction != "desc" {
		s.validationFailed(w, "PullRequestReviewComment", "invalid", "direction")
		return
	}
	var kept []*ReviewComment
	for _, c := range s.ReviewComments[key] {
		if !c.Updated.Before(since) {
			kept = append(kept, c)
		}
	}
	slices.SortStableFunc(kept, func(a, b *ReviewComment) int { return cmp.Compare(a.ID, b.ID) })
	if sortBy != "" {
		at := func(c *ReviewComment) time.Time {
			if sortBy == "updated" {
				return c.Updated
			}
			return c.Created
		}
		slices.SortStableFunc(kept, func(a, b *ReviewComment) int {
			if direction == "desc" {
				a, b = b, a
			}
			return at(a).Compare(at(b))
		})
	}
	list := make([]any, 0, len(kept))
	for _, c := range kept {
		list = append(list, s.reviewCommentJSON(key, c))
	}
	s.paginate(w, r, list)
}

// dismiss dismisses a review as GitHub does: a message is required, only an approval or a
// request for changes can be dismissed (422 otherwise), an unknown review is 404.
func (s *Server) dismiss(w http.ResponseWriter, key, idText string, body []byte) {
	var in struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		s.writeError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	id, _ := strconv.ParseInt(idText, 10, 64)
	for _, rv := range s.Reviews[key] {
		if rv.ID != id {
			continue
		}
		switch {
		case strings.TrimSpace(in.Message) == "":
			s.unprocessable(w, "reviews#dismiss-a-review-for-a-pull-request", "message wasn't supplied.")
		case rv.State != "APPROVED" && rv.State != "CHANGES_REQUESTED":
			s.unprocessable(w, "reviews#dismiss-a-review-for-a-pull-request", "Can not dismiss a "+strings.ToLower(rv.State)+" pull request review")
		default:
			rv.State, rv.Dismissal = "DISMISSED", in.Message
			s.writeJSON(w, http.StatusOK, s.reviewJSON(key, rv))
		}
		return
	}
	s.writeError(w, http.StatusNotFound, "Not Found")
}

// unprocessable answers 422 as GitHub does for a review it refuses: a generic message and the
// reasons as strings in errors[].
func (s *Server) unprocessable(w http.ResponseWriter, doc string, reasons ...string) {
	s.writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Unprocessable Entity", "errors": reasons,
		"documentation_url": "https://docs.github.com/rest/pulls/" + doc, "status": "422"})
}

// validationFailed answers 422 as GitHub does for a resource it refuses to create or change:
// "Validation Failed" and one error naming the resource, the field and what is wrong with it.
func (s *Server) validationFailed(w http.ResponseWriter, resource, code, field string) {
	s.writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "errors": []any{map[string]any{"resource": resource, "code": code, "field": field}}})
}

// createReview creates a review with its comments, all or nothing, as GitHub does: a comment on
// a line outside the diff refuses the whole review with 422.
func (s *Server) createReview(w http.ResponseWriter, key string, pr *PR, body []byte) {
	const doc = "reviews#create-a-review-for-a-pull-request"
	var in struct {
		CommitID string `json:"commit_id"`
		Body     string `json:"body"`
		Event    string `json:"event"`
		Comments []struct {
			Path      string `json:"path"`
			Line      int    `json:"line"`
			Side      string `json:"side"`
			StartLine int    `json:"start_line"`
			Position  int    `json:"position"`
			Body      string `json:"body"`
		} `json:"comments"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		s.writeJSON(w, http.StatusBadRequest, map[string]any{"message": "Problems parsing JSON", "documentation_url": "https://docs.github.com/rest/pulls/" + doc, "status": "400"})
		return
	}
	// A review without an event stays pending (unsubmitted), as on GitHub.
	state := map[string]string{"": "PENDING", "APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}[in.Event]
	if state == "" {
		s.unprocessable(w, doc, fmt.Sprintf("Event %q is not one of APPROVE, REQUEST_CHANGES, COMMENT", in.Event))
		return
	}
	if in.Body == "" && (in.Event == "REQUEST_CHANGES" || in.Event == "COMMENT") {
		s.unprocessable(w, doc, "Body is required when using REQUEST_CHANGES or COMMENT event")
		return
	}
	commit := in.CommitID
	if commit == "" {
		commit = pr.HeadSHA
	}
	lines := diffLines(pr)
	for _, c := range in.Comments {
		side := c.Side
		if side == "" {
			side = "RIGHT"
		}
		switch {
		case c.Body == "":
			s.unprocessable(w, doc, "Body can't be blank")
			return
		case lines[c.Path] == nil:
			s.unprocessable(w, doc, "Path could not be resolved")
			return
		case c.Line == 0 && c.Position == 0:
			s.unprocessable(w, doc, "Pull request review thread line must be part of the diff and Pull request review thread diff hunk can't be blank")
			return
		case c.Line != 0 && !lines[c.Path][side][c.Line], c.StartLine != 0 && (c.StartLine >= c.Line || !lines[c.Path][side][c.StartLine]):
			s.unprocessable(w, doc, "Pull request review thread line must be part of the diff and Pull request review thread diff hunk can't be blank")
			return
		}
	}
	s.nextID++
	now := s.now()
	rv := &Review{ID: s.nextID, User: s.Slug + "[bot]", Body: in.Body, CommitID: commit, State: state}
	s.Reviews[key] = append(s.Reviews[key], rv)
	for _, c := range in.Comments {
		s.nextID++
		side := c.Side
		if side == "" {
			side = "RIGHT"
		}
		s.ReviewComments[key] = append(s.ReviewComments[key], &ReviewComment{ID: s.nextID, ReviewID: rv.ID, User: rv.User, Body: c.Body,
			Path: c.Path, Line: c.Line, StartLine: c.StartLine, Side: side, CommitID: commit, Created: now, Updated: now})
	}
	s.writeJSON(w, http.StatusOK, s.reviewJSON(key, rv))
}

// reply answers a review comment in its thread; a reply to a reply joins the same thread.
func (s *Server) reply(w http.ResponseWriter, key string, pr *PR, idText string, body []byte) {
	id, _ := strconv.ParseInt(idText, 10, 64)
	var in struct {
		Body string `json:"body"`
	}
	_ = json.Unmarshal(body, &in)
	var to *ReviewComment
	for _, c := range s.ReviewComments[key] {
		if c.ID == id {
			to = c
		}
	}
	if to == nil {
		s.writeJSON(w, http.StatusNotFound, map[string]any{"message": "Not Found", "documentation_url": "https://docs.github.com/rest/pulls/comments#create-a-reply-for-a-review-comment", "status": "404"})
		return
	}
	if in.Body == "" {
		s.unprocessable(w, "comments#create-a-reply-for-a-review-comment", "Body can't be blank")
		return
	}
	thread := to.ID
	if to.InReplyTo != 0 {
		thread = to.InReplyTo
	}
	s.nextID++
	now := s.now()
	c := &ReviewComment{ID: s.nextID, InReplyTo: thread, User: s.Slug + "[bot]", Body: in.Body, Path: to.Path, Line: to.Line, Side: to.Side, CommitID: pr.HeadSHA,
		Created: now, Updated: now}
	s.ReviewComments[key] = append(s.ReviewComments[key], c)
	s.writeJSON(w, http.StatusCreated, s.reviewCommentJSON(key, c))
}

func (s *Server) reviewJSON(key string, rv *Review) map[string]any {
	repo, n, _ := strings.Cut(key, "#")
	return map[string]any{"id": rv.ID, "node_id": fmt.Sprintf("PRR_%d", rv.ID), "user": map[string]any{"login": rv.User, "type": "Bot"},
		"body": rv.Body, "state": rv.State, "commit_id": rv.CommitID, "author_association": "NONE",
		"html_url":         fmt.Sprintf("https://github.com/%s/pull/%s#pullrequestreview-%d", repo, n, rv.ID),
		"pull_request_url": fmt.Sprintf("%s/repos/%s/pulls/%s", s.URL, repo, n), "submitted_at": time.Now().UTC().Format(time.RFC3339)}
}

// reviewCommentJSON is a review comment as the REST API shows it (get, list, and the reply's
// answer): ids, author, body, place, commits, times and links.
func (s *Server) reviewCommentJSON(key string, c *ReviewComment) map[string]any {
	repo, n, _ := strings.Cut(key, "#")
	typ := "User"
	if strings.HasSuffix(c.User, "[bot]") {
		typ = "Bot"
	}
	self := fmt.Sprintf("%s/repos/%s/pulls/comments/%d", s.URL, repo, c.ID)
	html := fmt.Sprintf("https://github.com/%s/pull/%s#discussion_r%d", repo, n, c.ID)
	pull := fmt.Sprintf("%s/repos/%s/pulls/%s", s.URL, repo, n)
	out := map[string]any{"url": self, "id": c.ID, "node_id": fmt.Sprintf("PRRC_%d", c.ID), "pull_request_review_id": c.ReviewID,
		"diff_hunk": fmt.Sprintf("@@ -0,0 +1,%d @@", c.Line), "path": c.Path, "commit_id": c.CommitID, "original_commit_id": c.CommitID,
		"user": map[string]any{"login": c.User, "id": 1, "type": typ, "site_admin": false, "html_url": "https://github.com/" + c.User},
		"body": c.Body, "created_at": c.Created.Format(time.RFC3339), "updated_at": c.Updated.Format(time.RFC3339),
		"html_url": html, "pull_request_url": pull, "author_association": "NONE",
		"_links":     map[string]any{"self": map[string]any{"href": self}, "html": map[string]any{"href": html}, "pull_request": map[string]any{"href": pull}},
		"start_line": nil, "original_start_line": nil, "start_side": nil,
		"line": c.Line, "original_line": c.Line, "side": c.Side, "subject_type": "line"}
	if c.StartLine != 0 {
		out["start_line"], out["original_start_line"], out["start_side"] = c.StartLine, c.StartLine, c.Side
	}
	if c.InReplyTo != 0 {
		out["in_reply_to_id"] = c.InReplyTo
	}
	return out
}

// diffLines are the lines a review comment may be on, by path and side (RIGHT: the head's added
// and context lines; LEFT: the base's deleted and context lines), from the pull request's files
// and their patches, else from its diff.
func diffLines(pr *PR) map[string]map[string]map[int]bool {
	out := map[string]map[string]map[int]bool{}
	add := func(path, patch string) {
		sides := map[string]map[int]bool{"LEFT": {}, "RIGHT": {}}
		out[path] = sides
		oldN, newN := 0, 0
		for _, l := range strings.Split(patch, "\n") {
			if m := hunkRe.FindStringSubmatch(l); m != nil {
				oldN, _ = strconv.Atoi(m[1])
				newN, _ = strconv.Atoi(m[2])
				continue
			}
			if oldN == 0 && newN == 0 {
				continue // before the first hunk: headers
			}
			switch {
			case strings.HasPrefix(l, "+"):
				sides["RIGHT"][newN] = true
				newN++
			case strings.HasPrefix(l, "-"):
				sides["LEFT"][oldN] = true
				oldN++
			case strings.HasPrefix(l, " "):
				sides["RIGHT"][newN], sides["LEFT"][oldN] = true, true
				newN++
				oldN++
			}
		}
	}
	if len(pr.Files) > 0 {
		for _, f := range pr.Files {
			add(fmt.Sprint(f["filename"]), fmt.Sprint(f["patch"]))
		}
		return out
	}
	for _, part := range strings.Split("\n"+pr.Diff, "\ndiff --git ")[1:] {
		path := ""
		for _, l := range strings.Split(part, "\n") {
			if p, ok := strings.CutPrefix(l, "+++ "); ok {
				if p = strings.TrimSpace(p); p != "/dev/null" {
					path = strings.TrimPrefix(p, "b/")
				}
				break
			}
			if p, ok := strings.CutPrefix(l, "--- "); ok {
				path = strings.TrimPrefix(strings.TrimSpace(p), "a/")
			}
		}
		if path != "" && path != "/dev/null" {
			add(path, part)
		}
	}
	return out
}

// hunkRe reads a hunk header's old and new start lines.
var hunkRe = regexp.MustCompile(`^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@`)
