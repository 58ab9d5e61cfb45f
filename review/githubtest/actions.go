package githubtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// The Actions and related endpoints a failure debate reads: a workflow run's jobs, a job's logs
// (GitHub answers 302 to a short-lived download URL on another host, which must be fetched
// without the installation token), a check run's annotations, the pull requests of a commit.
var (
	reRunJobs     = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/actions/runs/(\d+)/jobs$`)
	reJobLogs     = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/actions/jobs/(\d+)/logs$`)
	reAnnotations = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/check-runs/(\d+)/annotations$`)
	reCommitPulls = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/commits/([^/]+)/pulls$`)
	// reLogDownload is the fake's stand-in for the log storage GitHub redirects to.
	reLogDownload = regexp.MustCompile(`^/_logs/([^/]+)/([^/]+)/(\d+)$`)
	reIssues      = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues$`)
	reIssue       = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/(\d+)$`)
)

// Issue is an issue the bot opened.
type Issue struct {
	Number      int
	Title, Body string
	// State is "open" or "closed"; StateReason "completed" or "not_planned" once closed.
	State, StateReason string
}

func (is *Issue) json() map[string]any {
	return map[string]any{"number": is.Number, "title": is.Title, "body": is.Body, "state": is.State, "state_reason": nilIfEmpty(is.StateReason)}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// LogDownloads counts the log downloads served, by job id.
func (s *Server) LogDownloads() map[int64]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int64]int{}
	for k, v := range s.logDownloads {
		out[k] = v
	}
	return out
}

// SetJobs sets the jobs of a workflow run ("owner/repo", run id), as GitHub lists them
// (id, name, conclusion, steps with name, number and conclusion...).
func (s *Server) SetJobs(repo string, runID int64, jobs []map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.RunJobs[fmt.Sprintf("%s:%d", repo, runID)] = jobs
}

// SetJobLog sets the plain-text log of a job.
func (s *Server) SetJobLog(repo string, jobID int64, log string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.JobLogs[fmt.Sprintf("%s:%d", repo, jobID)] = log
}

// AddCheckRun adds a check run another App made, with its annotations; it returns its id.
func (s *Server) AddCheckRun(repo string, cr CheckRun) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	cr.ID = s.nextID
	s.CheckRuns[repo] = append(s.CheckRuns[repo], &cr)
	return cr.ID
}

// serveLogDownload answers the download URL a job's logs redirect to. The storage host knows
// nothing of GitHub's tokens: like the real one, it refuses a request that carries one, so a
// client that forwards the installation token along the redirect fails here.
func (s *Server) serveLogDownload(w http.ResponseWriter, r *http.Request, m []string) {
	s.mu.Lock()
	s.calls = append(s.calls, Call{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Operation: "logs/download"})
	id, _ := strconv.ParseInt(m[3], 10, 64)
	log, ok := s.JobLogs[fmt.Sprintf("%s/%s:%d", m[1], m[2], id)]
	if ok && r.Header.Get("Authorization") == "" && r.URL.Query().Get("sig") != "" {
		s.logDownloads[id]++
	}
	s.mu.Unlock()
	switch {
	case r.Header.Get("Authorization") != "":
		http.Error(w, "AuthenticationFailed: the request carries an Authorization header and a signature", http.StatusBadRequest)
	case r.URL.Query().Get("sig") == "" || !ok:
		http.Error(w, "ResourceNotFound", http.StatusNotFound)
	default:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte(log))
	}
}

// actions answers the endpoints above; it reports false for any other path (s.mu held).
func (s *Server) actions(w http.ResponseWriter, r *http.Request, path string, body []byte) bool {
	switch {
	case reIssues.MatchString(path) && r.Method == http.MethodPost:
		m := reIssues.FindStringSubmatch(path)
		var in struct{ Title, Body string }
		if err := json.NewDecoder(strings.NewReader(string(body))).Decode(&in); err != nil || in.Title == "" {
			s.validationFailed(w, "Issue", "missing_field", "title")
			return true
		}
		// Issues and pull requests share their numbers.
		n := len(s.Issues) + 1
		for key := range s.PRs {
			if k, ok := strings.CutPrefix(key, m[1]+"/"+m[2]+"#"); ok {
				if x, _ := strconv.Atoi(k); x >= n {
					n = x + 1
				}
			}
		}
		for _, is := range s.Issues {
			if is.Number >= n {
				n = is.Number + 1
			}
		}
		is := &Issue{Number: n, Title: in.Title, Body: in.Body, State: "open"}
		s.Issues[fmt.Sprintf("%s/%s#%d", m[1], m[2], n)] = is
		s.writeJSON(w, 201, is.json())
	case reIssue.MatchString(path) && (r.Method == http.MethodPatch || r.Method == http.MethodGet):
		// Only the issues the bot opened: a pull request's issue is not edited by the bot.
		m := reIssue.FindStringSubmatch(path)
		is, ok := s.Issues[fmt.Sprintf("%s/%s#%s", m[1], m[2], m[3])]
		if !ok {
			s.writeError(w, 404, "Not Found")
			return true
		}
		if r.Method == http.MethodPatch {
			var in struct {
				Title, Body, State *string
				StateReason        *string `json:"state_reason"`
			}
			if err := json.Unmarshal(body, &in); err != nil {
				s.writeError(w, 400, "Problems parsing JSON")
				return true
			}
			if in.State != nil && *in.State != "open" && *in.State != "closed" {
				s.validationFailed(w, "Issue", "invalid", "state")
				return true
			}
			if in.StateReason != nil && *in.StateReason != "completed" && *in.StateReason != "not_planned" && *in.StateReason != "reopened" {
				s.validationFailed(w, "Issue", "invalid", "state_reason")
				return true
			}
			if in.Title != nil {
				is.Title = *in.Title
			}
			if in.Body != nil {
				is.Body = *in.Body
			}
			if in.State != nil {
				is.State, is.StateReason = *in.State, ""
				if *in.State == "closed" {
					is.StateReason = "completed"
				}
			}
			if in.StateReason != nil && is.State == "closed" {
				is.StateReason = *in.StateReason
			}
		}
		s.writeJSON(w, 200, is.json())
	case reRunJobs.MatchString(path):
		m := reRunJobs.FindStringSubmatch(path)
		jobs, ok := s.RunJobs[fmt.Sprintf("%s/%s:%s", m[1], m[2], m[3])]
		if !ok {
			s.writeError(w, 404, "Not Found")
			return true
		}
		s.paginateObject(w, r, "jobs", toAny(jobs))
	case reJobLogs.MatchString(path):
		m := reJobLogs.FindStringSubmatch(path)
		if _, ok := s.JobLogs[fmt.Sprintf("%s/%s:%s", m[1], m[2], m[3])]; !ok {
			s.writeError(w, 404, "Not Found")
			return true
		}
		w.Header().Set("Location", fmt.Sprintf("%s/_logs/%s/%s/%s?sig=fake-signature&se=2099-01-01", s.URL, m[1], m[2], m[3]))
		w.WriteHeader(http.StatusFound)
	case reAnnotations.MatchString(path):
		m := reAnnotations.FindStringSubmatch(path)
		id, _ := strconv.ParseInt(m[3], 10, 64)
		for _, c := range s.CheckRuns[m[1]+"/"+m[2]] {
			if c.ID == id {
				list := []any{}
				for _, a := range c.Annotations {
					list = append(list, map[string]any{"path": a.Path, "start_line": a.StartLine, "end_line": a.EndLine,
						"annotation_level": a.Level, "message": a.Message, "title": a.Title, "raw_details": ""})
				}
				s.paginate(w, r, list)
				return true
			}
		}
		s.writeError(w, 404, "Not Found")
	case reCommitPulls.MatchString(path):
		m := reCommitPulls.FindStringSubmatch(path)
		list := []any{}
		for _, key := range Keys(s.PRs) {
			pr := s.PRs[key]
			repo, num, _ := strings.Cut(key, "#")
			if repo != m[1]+"/"+m[2] || pr.HeadSHA != m[3] {
				continue
			}
			n, _ := strconv.Atoi(num)
			list = append(list, map[string]any{"number": n, "state": "open", "title": pr.Title,
				"head": map[string]any{"ref": pr.HeadRef, "sha": pr.HeadSHA}, "base": map[string]any{"ref": pr.BaseRef, "sha": pr.BaseSHA}})
		}
		if len(list) == 0 && !s.knownCommit(m[1]+"/"+m[2], m[3]) {
			s.writeJSON(w, 422, map[string]any{"message": "No commit found for SHA: " + m[3], "documentation_url": "https://docs.github.com/rest/commits/commits#list-pull-requests-associated-with-a-commit", "status": "422"})
			return true
		}
		s.paginate(w, r, list)
	default:
		return false
	}
	return true
}

// paginateObject answers one page of list inside an object, {"total_count": n, key: [...]},
// as the Actions API lists, with the Link header paginate writes.
func (s *Server) paginateObject(w http.ResponseWriter, r *http.Request, key string, list []any) {
	out, link := s.page(r, list)
	if link != "" {
		w.Header().Set("Link", link)
	}
	s.writeJSON(w, 200, map[string]any{"total_count": len(list), key: out})
}

// LabelsOn returns the labels of an issue or pull request.
func (s *Server) LabelsOn(key string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.Labels[key]...)
}

// IssuesOpened returns the issues the bot opened, by "owner/repo#n".
func (s *Server) IssuesOpened() map[string]Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]Issue{}
	for k, v := range s.Issues {
		out[k] = *v
	}
	return out
}
