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

// A pull request with more findings than GitHub takes in one request: every standing finding
// arrives on the check run as an annotation, no request carries more than 50, and the check run
// concludes once.
func TestCheckRunAnnotatesEveryStandingFinding(t *testing.T) {
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
	lines := map[int]bool{}
	others := 0
	for _, an := range runs[0].Annotations {
		if an.Path != "internal/report/queries.go" {
			t.Errorf("annotation on %s: %+v", an.Path, an)
			continue
		}
		if !strings.Contains(an.Title, "sql-injection") {
			others++ // the untested-change note
			continue
		}
		if an.Level != "failure" || an.EndLine != an.StartLine || !strings.Contains(an.Message, "db.Query receives SQL built from strings") {
			t.Errorf("annotation %+v, want a failure on one line saying what is wrong", an)
		}
		if lines[an.StartLine] {
			t.Errorf("line %d annotated twice", an.StartLine)
		}
		lines[an.StartLine] = true
	}
	for i := 0; i < n; i++ {
		if line := 7 + 5*i; !lines[line] {
			t.Errorf("the finding at line %d has no annotation", line)
		}
	}
	if len(lines) != n || others != 1 {
		t.Errorf("%d sql-injection annotations and %d others, want %d and the untested-change note", len(lines), others, n)
	}
	// GitHub takes 50 a request: 111 annotations are three requests, the first with the conclusion.
	var batches []int
	for _, c := range a.gh.Calls() {
		if c.Operation == "" || !strings.Contains(c.Path, "/check-runs") || c.Body == "" {
			continue
		}
		var in struct {
			Conclusion string `json:"conclusion"`
			Output     *struct {
				Annotations []json.RawMessage `json:"annotations"`
			} `json:"output"`
		}
		if err := json.Unmarshal([]byte(c.Body), &in); err != nil {
			t.Fatalf("%s %s: %v", c.Method, c.Path, err)
		}
		if in.Output == nil || len(in.Output.Annotations) == 0 {
			continue
		}
		if k := len(in.Output.Annotations); k > githubtest.MaxAnnotations {
			t.Errorf("%s %s carried %d annotations", c.Method, c.Path, k)
		}
		if (in.Conclusion != "") != (len(batches) == 0) {
			t.Errorf("request %d of annotations has conclusion %q; want it on the first only", len(batches)+1, in.Conclusion)
		}
		batches = append(batches, len(in.Output.Annotations))
	}
	if fmt.Sprint(batches) != "[50 50 11]" {
		t.Errorf("annotations per request = %v, want [50 50 11]", batches)
	}
	a.checkCalls()
}
