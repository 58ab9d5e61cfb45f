package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/githubtest"
)

// queriesDiff adds a Go file of n functions, each building its SQL from strings: n findings,
// one per function, at lines 7, 12, 17, ...
func queriesDiff(n int) string {
	lines := []string{"package report", "", `import "database/sql"`, ""}
	for i := 0; i < n; i++ {
		lines = append(lines, fmt.Sprintf("// Q%d reads table %d.", i, i), fmt.Sprintf("func Q%d(db *sql.DB, name string) (*sql.Rows, error) {", i),
			fmt.Sprintf("\treturn db.Query(\"SELECT id FROM t%d WHERE name = '\" + name + \"'\")", i), "}", "")
	}
	lines = lines[:len(lines)-1]
	return changetest.NewFileDiff("internal/report/queries.go", strings.Join(lines, "\n"))
}

// A pull request with more findings than GitHub takes in one request: every finding of
// substance is a review comment on its line, one review for all; the check run annotates only
// what has no comment (the note about untested code), and concludes once. (Batches of 50
// annotations: review/publish's TestAnnotationsBatchedByFifty.)
func TestCheckRunAnnotatesOnlyFindingsWithoutAComment(t *testing.T) {
	const n = 110
	a := newApp(t)
	a.gh.PRs["acme/shop#7"].Diff = queriesDiff(n)
	if code := a.post("pull_request", "d-ann", fixture(t, "pull_request.opened.json", nil), secret); code != http.StatusOK && code != http.StatusAccepted {
		t.Fatalf("delivery answered %d", code)
	}
	a.srv.Queue.Wait()
	runs := a.gh.Checks("acme/shop")
	if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != "action_required" || runs[0].Conclusions != 1 {
		t.Fatalf("check runs = %+v, want one, concluded once with action_required", runs)
	}
	lines := map[int]int{}
	for _, c := range a.gh.ReviewCommentsOn("acme/shop#7") {
		if c.Path == "internal/report/queries.go" && strings.Contains(c.Body, "(`sql-injection`)") && strings.Contains(c.Body, "db.Query receives SQL built from strings") {
			lines[c.Line]++
		}
	}
	for i := 0; i < n; i++ {
		if line := 7 + 5*i; lines[line] != 1 {
			t.Errorf("the finding at line %d has %d review comments, want one", line, lines[line])
		}
	}
	if reviews := a.gh.ReviewsOn("acme/shop#7"); len(reviews) != 1 {
		t.Errorf("%d reviews, want one", len(reviews))
	}
	var titles []string
	for _, an := range runs[0].Annotations {
		titles = append(titles, an.Title)
		if strings.Contains(an.Title, "sql-injection") {
			t.Errorf("annotation at line %d repeats a review comment", an.StartLine)
		}
	}
	if len(titles) != 1 || !strings.Contains(titles[0], "untested-change") {
		t.Errorf("annotations %v, want the untested-change note only", titles)
	}
	for _, c := range a.gh.Calls() {
		if c.Operation == "" || !strings.Contains(c.Path, "/check-runs") || c.Body == "" {
			continue
		}
		var in struct {
			Output *struct {
				Annotations []json.RawMessage `json:"annotations"`
			} `json:"output"`
		}
		if err := json.Unmarshal([]byte(c.Body), &in); err != nil {
			t.Fatalf("%s %s: %v", c.Method, c.Path, err)
		}
		if in.Output != nil && len(in.Output.Annotations) > githubtest.MaxAnnotations {
			t.Errorf("%s %s carried %d annotations", c.Method, c.Path, len(in.Output.Annotations))
		}
	}
	a.checkCalls()
}
