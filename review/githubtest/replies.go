package githubtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The review comments' own operations, addressed by the comment's id alone (no pull request in
// the path): get one, and its reactions.
var (
	reReviewCommentID  = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/comments/(\d+)$`)
	reReviewCommentRxn = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/comments/(\d+)/reactions$`)
)

// reactionContents are the reactions GitHub takes; any other content is 422.
var reactionContents = []string{"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"}

// AddReply answers a review comment in its thread as a user would ("owner/repo#n"; s.mu not
// held): a reply to a reply joins the same thread, as on GitHub. It returns the reply's id.
func (s *Server) AddReply(key, user string, inReplyTo int64, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var to *ReviewComment
	for _, c := range s.ReviewComments[key] {
		if c.ID == inReplyTo {
			to = c
		}
	}
	if to == nil {
		s.t.Fatalf("githubtest: no review comment %d on %s to reply to", inReplyTo, key)
		return 0
	}
	thread := to.ID
	if to.InReplyTo != 0 {
		thread = to.InReplyTo
	}
	s.nextID++
	sha := to.CommitID
	if pr := s.PRs[key]; pr != nil {
		sha = pr.HeadSHA
	}
	now := s.now()
	s.ReviewComments[key] = append(s.ReviewComments[key], &ReviewComment{ID: s.nextID, InReplyTo: thread, User: user, Body: body, Path: to.Path, Line: to.Line, Side: to.Side, CommitID: sha,
		Created: now, Updated: now})
	return s.nextID
}

// ReactionsOn returns the reactions a comment (issue or review comment) received, in order.
func (s *Server) ReactionsOn(id int64) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.Reactions[id])
}

// ReviewCommentEvent is the pull_request_review_comment delivery GitHub sends when the review
// comment id on key ("owner/repo#n") is created (action "created"; "edited" and "deleted" are
// the others): the comment as the REST API shows it plus the fields only the webhook has, the
// pull request, the repository, the sender (the comment's author) and the installation.
func (s *Server) ReviewCommentEvent(key string, id int64, action string, installation int64) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var c *ReviewComment
	for _, x := range s.ReviewComments[key] {
		if x.ID == id {
			c = x
		}
	}
	pr := s.PRs[key]
	if c == nil || pr == nil {
		s.t.Fatalf("githubtest: no review comment %d on %s", id, key)
		return nil
	}
	repo, n, _ := strings.Cut(key, "#")
	owner, name, _ := strings.Cut(repo, "/")
	number, _ := strconv.Atoi(n)
	comment := s.reviewCommentJSON(key, c)
	comment["url"] = fmt.Sprintf("https://api.github.com/repos/%s/pulls/comments/%d", repo, c.ID)
	comment["pull_request_url"] = fmt.Sprintf("https://api.github.com/repos/%s/pulls/%d", repo, number)
	comment["author_association"] = "COLLABORATOR"
	sender := comment["user"]
	user := func(login, typ string) map[string]any {
		return map[string]any{"login": login, "id": 1, "type": typ, "site_admin": false, "html_url": "https://github.com/" + login}
	}
	return map[string]any{
		"action":  action,
		"comment": comment,
		"pull_request": map[string]any{
			"url": comment["pull_request_url"], "number": number, "state": "open", "locked": false, "title": pr.Title, "body": pr.Body, "draft": pr.Draft,
			"html_url": fmt.Sprintf("https://github.com/%s/pull/%d", repo, number), "user": user("octocat", "User"),
			"head": map[string]any{"ref": pr.HeadRef, "sha": pr.HeadSHA, "label": owner + ":" + pr.HeadRef},
			"base": map[string]any{"ref": pr.BaseRef, "sha": cmpOr(pr.BaseSHA, "base0000"), "label": owner + ":" + pr.BaseRef},
		},
		"repository": map[string]any{"id": 1, "name": name, "full_name": repo, "private": true, "owner": user(owner, "Organization"),
			"html_url": "https://github.com/" + repo, "default_branch": "main"},
		"sender":       sender,
		"installation": map[string]any{"id": installation, "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI="},
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// routeReviewComment answers the operations on one review comment by its id: get it, react to
// it and list its reactions; it reports false for any other path (s.mu held).
func (s *Server) routeReviewComment(w http.ResponseWriter, r *http.Request, path string, body []byte) bool {
	m := reReviewCommentID.FindStringSubmatch(path)
	reactions := false
	if m == nil {
		if m = reReviewCommentRxn.FindStringSubmatch(path); m == nil {
			return false
		}
		reactions = true
	}
	repo := m[1] + "/" + m[2]
	id, _ := strconv.ParseInt(m[3], 10, 64)
	var found *ReviewComment
	var key string
	for k, list := range s.ReviewComments {
		for _, c := range list {
			if c.ID == id && strings.HasPrefix(k, repo+"#") {
				found, key = c, k
			}
		}
	}
	if found == nil {
		s.writeJSON(w, http.StatusNotFound, map[string]any{"message": "Not Found", "documentation_url": "https://docs.github.com/rest/pulls/comments#get-a-review-comment-for-a-pull-request", "status": "404"})
		return true
	}
	switch {
	case reactions && r.Method == http.MethodPost:
		var in struct {
			Content string `json:"content"`
		}
		_ = json.Unmarshal(body, &in)
		if !slices.Contains(reactionContents, in.Content) {
			s.validationFailed(w, "Reaction", "invalid", "content")
			return true
		}
		status := http.StatusCreated
		if slices.Contains(s.Reactions[id], in.Content) {
			status = http.StatusOK // the App's same reaction again: GitHub returns the one it has
		} else {
			s.Reactions[id] = append(s.Reactions[id], in.Content)
		}
		s.writeJSON(w, status, map[string]any{"id": id*10 + int64(len(s.Reactions[id])), "content": in.Content, "user": map[string]any{"login": s.Slug + "[bot]", "type": "Bot"}})
	case reactions:
		var list []any
		for i, c := range s.Reactions[id] {
			list = append(list, map[string]any{"id": id*10 + int64(i+1), "content": c})
		}
		s.paginate(w, r, list)
	case r.Method == http.MethodGet:
		s.writeJSON(w, http.StatusOK, s.reviewCommentJSON(key, found))
	default:
		s.writeError(w, http.StatusNotFound, "Not Found")
	}
	return true
}
