package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/githubtest"
)

// alertIn makes an alert fixture's repository private, public, or silent about it ("").
func alertIn(visibility string) func(map[string]any) {
	return func(p map[string]any) {
		repo := p["repository"].(map[string]any)
		delete(repo, "private")
		delete(repo, "visibility")
		if visibility != "" {
			repo["private"], repo["visibility"] = visibility != "public", visibility
		}
	}
}

// codeScanningAlert is a code_scanning_alert on the default branch of acme/shop: alert number
// of rule, in a repository of the visibility.
func codeScanningAlert(t *testing.T, action string, number int, rule, visibility string) []byte {
	return ciAlertFixture(t, "code_scanning_alert.created.json", func(p map[string]any) {
		alertIn(visibility)(p)
		p["action"], p["ref"] = action, "refs/heads/main"
		a := p["alert"].(map[string]any)
		a["number"] = number
		a["html_url"] = fmt.Sprintf("https://github.com/acme/shop/security/code-scanning/%d", number)
		a["rule"].(map[string]any)["id"] = rule
		inst := a["most_recent_instance"].(map[string]any)
		inst["ref"] = "refs/heads/main"
		inst["location"].(map[string]any)["start_line"] = 10 + number
	})
}

// postAll delivers every body at once, then waits for the jobs: a burst.
func (a *app) postAll(event string, bodies map[string][]byte) {
	a.t.Helper()
	for id, body := range bodies {
		if code := a.post(event, id, body, secret); code != http.StatusOK && code != http.StatusAccepted {
			a.t.Fatalf("%s delivery %s answered %d", event, id, code)
		}
	}
	a.srv.Queue.Wait()
}

func (a *app) issueCreations() int {
	n := 0
	for _, c := range a.gh.Calls() {
		if c.Method == http.MethodPost && strings.HasSuffix(c.Path, "/issues") {
			n++
		}
	}
	return n
}

func (a *app) withheld(marker string) int64 {
	a.t.Helper()
	v, err := a.srv.Store.Publication(context.Background(), "acme/shop#alerts-withheld", marker)
	if err != nil {
		return 0
	}
	return v
}

// An alert of a public repository opens no issue, whatever debatebot.yml says: the issue would
// publish what GitHub shows only to maintainers. Nor does one whose repository's visibility
// neither the delivery nor the API tells. Each is logged and recorded with its reason.
func TestAlertOfPublicRepositoryOpensNoIssue(t *testing.T) {
	a := newApp(t)
	a.gh.Contents["acme/shop@:.github/debatebot.yml"] = "alerts: issue\n"
	a.deliver("dependabot_alert", "pub-1", ciAlertFixture(t, "dependabot_alert.created.json", alertIn("public")))
	a.deliver("code_scanning_alert", "pub-2", codeScanningAlert(t, "created", 3, "go/sql-injection", "public"))
	// The fixture as GitHub sent it: "private": false, no visibility.
	a.deliver("code_scanning_alert", "pub-3", ciAlertFixture(t, "code_scanning_alert.created.json", func(p map[string]any) {
		p["ref"] = "refs/heads/main"
		p["alert"].(map[string]any)["number"] = 4
	}))
	// Unknown, and GitHub does not answer: taken as public.
	a.gh.FailIf(func(c githubtest.Call) bool { return c.Method == http.MethodGet && c.Path == "/repos/acme/shop" }, http.StatusInternalServerError, 100)
	a.deliver("code_scanning_alert", "pub-4", codeScanningAlert(t, "created", 5, "go/path-injection", ""))
	if n := a.issueCreations(); n != 0 || len(a.gh.IssuesOpened()) != 0 {
		t.Fatalf("alerts of a public repository opened %d issues", n)
	}
	for _, m := range []string{"alert-dependabot-7", "alert-code_scanning-3", "alert-code_scanning-4", "alert-code_scanning-5"} {
		if got := a.withheld(m); got != alertWithheldPublic {
			t.Errorf("withheld %s recorded as %d, want %d (public repository)", m, got, alertWithheldPublic)
		}
	}
	if metrics := a.get("/metrics"); !strings.Contains(metrics, `debatebot_alert_issues_withheld_total{reason="public_repository"} 4`) {
		t.Errorf("the metrics do not count the withheld alerts")
	}
	a.checkCalls()
}

// A burst of alerts of one rule in a private repository opens one issue, which lists them all;
// it stays open while any is open, and is closed when the last is fixed.
func TestAlertBurstOfOneRuleOpensOneIssue(t *testing.T) {
	a := newApp(t)
	a.gh.Contents["acme/shop@:.github/debatebot.yml"] = "alerts: issue\n"
	burst := map[string][]byte{}
	for n := 1; n <= 8; n++ {
		burst[fmt.Sprintf("burst-%d", n)] = codeScanningAlert(t, "created", n, "go/sql-injection", "private")
	}
	a.postAll("code_scanning_alert", burst)
	issues := a.gh.IssuesOpened()
	if len(issues) != 1 || a.issueCreations() != 1 {
		t.Fatalf("a burst of 8 alerts of one rule opened %d issues, want 1", len(issues))
	}
	var key string
	var issue githubtest.Issue
	for k, is := range issues {
		key, issue = k, is
	}
	if issue.Title != "Security alerts: CodeQL go/sql-injection" {
		t.Errorf("issue title %q", issue.Title)
	}
	for n := 1; n <= 8; n++ {
		if want := fmt.Sprintf("- [ ] [`CodeQL` alert #%d](https://github.com/acme/shop/security/code-scanning/%d) `internal/store/users.go:%d`", n, n, 10+n); !strings.Contains(issue.Body, want) {
			t.Errorf("the issue does not list alert #%d (%q):\n%s", n, want, issue.Body)
		}
	}
	// The group is debated once, not once per alert.
	var debates int
	for _, c := range a.gh.CommentsOn(key) {
		if strings.HasPrefix(c.Body, "<!-- debatebot:transcript") || strings.Contains(c.Body, "go/sql-injection") && strings.Contains(c.Body, "debatebot") {
			debates++
		}
	}
	if debates == 0 {
		t.Errorf("the group's issue was not debated: %v", a.gh.CommentsOn(key))
	}
	// Seven fixed (one twice): the issue stays open, its list ticked.
	fixes := map[string][]byte{}
	for n := 1; n <= 7; n++ {
		fixes[fmt.Sprintf("fix-%d", n)] = codeScanningAlert(t, "fixed", n, "go/sql-injection", "private")
	}
	fixes["fix-1-again"] = codeScanningAlert(t, "fixed", 1, "go/sql-injection", "private")
	a.postAll("code_scanning_alert", fixes)
	issue = a.gh.IssuesOpened()[key]
	if issue.State != "open" || !strings.Contains(issue.Body, "- [x] [`CodeQL` alert #3]") || !strings.Contains(issue.Body, "- [ ] [`CodeQL` alert #8]") {
		t.Fatalf("with one alert left open, the issue is %s:\n%s", issue.State, issue.Body)
	}
	// The last one dismissed: closed, as completed since the others were fixed.
	a.deliver("code_scanning_alert", "fix-8", codeScanningAlert(t, "closed_by_user", 8, "go/sql-injection", "private"))
	if issue = a.gh.IssuesOpened()[key]; issue.State != "closed" || issue.StateReason != "completed" || !strings.Contains(issue.Body, "- [x] [`CodeQL` alert #8]") {
		t.Errorf("after its last alert, the issue: %+v", issue)
	}
	// A new alert of the rule opens a new issue: the old one is closed.
	// (The delivery says nothing of the visibility: the API says private.)
	a.deliver("code_scanning_alert", "again-9", codeScanningAlert(t, "created", 9, "go/sql-injection", ""))
	if n := len(a.gh.IssuesOpened()); n != 2 {
		t.Errorf("an alert of a rule whose issue was closed opened %d issues in all, want 2", n)
	}
	a.checkCalls()
}

// A burst of alerts of more rules than max_alert_issues opens at most that many issues; the
// others are recorded as withheld by the cap. Closing an issue gives its slot back.
func TestAlertBurstBeyondCapOpensAtMostTheCap(t *testing.T) {
	a := newApp(t)
	a.gh.Contents["acme/shop@:.github/debatebot.yml"] = "alerts: issue\nmax_alert_issues: 3\n"
	burst := map[string][]byte{}
	for n := 1; n <= 10; n++ {
		burst[fmt.Sprintf("rule-%d", n)] = codeScanningAlert(t, "created", n, fmt.Sprintf("go/rule-%d", n), "private")
	}
	a.postAll("code_scanning_alert", burst)
	if n := len(a.gh.IssuesOpened()); n != 3 || a.issueCreations() != 3 {
		t.Fatalf("10 alerts of 10 rules opened %d issues (%d requests), want the cap, 3", n, a.issueCreations())
	}
	var filed, capped []int
	for n := 1; n <= 10; n++ {
		if _, err := a.srv.Store.Publication(context.Background(), "acme/shop#alerts", fmt.Sprintf("alert-code_scanning-%d", n)); err == nil {
			filed = append(filed, n)
		} else if a.withheld(fmt.Sprintf("alert-code_scanning-%d", n)) == alertWithheldCap {
			capped = append(capped, n)
		}
	}
	if len(filed) != 3 || len(capped) != 7 {
		t.Fatalf("filed %v, withheld by the cap %v", filed, capped)
	}
	// A human closes one of the issues on GitHub; another is closed when its alert is fixed:
	// the next two new rules get issues, the third does not.
	for key, is := range a.gh.IssuesOpened() {
		if !strings.Contains(is.Body, fmt.Sprintf("alert #%d]", filed[0])) {
			continue
		}
		a.gh.Issues[key].State = "closed"
	}
	a.deliver("code_scanning_alert", "fixed", codeScanningAlert(t, "fixed", filed[1], fmt.Sprintf("go/rule-%d", filed[1]), "private"))
	for i, n := range capped[:3] {
		a.deliver("code_scanning_alert", fmt.Sprintf("later-%d", i), codeScanningAlert(t, "reopened", n, fmt.Sprintf("go/rule-%d", n), "private"))
	}
	open := 0
	for _, is := range a.gh.IssuesOpened() {
		if is.State == "open" {
			open++
		}
	}
	if open != 3 || len(a.gh.IssuesOpened()) != 5 {
		t.Errorf("%d issues open of %d, want 3 of 5", open, len(a.gh.IssuesOpened()))
	}
	a.checkCalls()
}
