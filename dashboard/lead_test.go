package dashboard

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

func testDashboard() *Dashboard {
	return &Dashboard{oauth: &oauth2.Config{Endpoint: oauth2.Endpoint{AuthURL: "https://github.example/login/oauth/authorize"}}}
}

// A debate's status says where it is: a running one names the last phase it completed, in
// words; a paused one its round; a queued one with phases behind it where it resumes.
func TestPhaseLabel(t *testing.T) {
	for _, c := range []struct {
		status, phase string
		round, paused int
		pending       bool
		want          string
	}{
		{store.StatusRunning, "rebuttal", 2, 0, false, "running · Rebuttals (round 2) done"},
		{store.StatusRunning, "opening_arguments", 0, 0, false, "running · Opening Arguments done"},
		{store.StatusRunning, "", 0, 0, false, "running · starting"},
		{store.StatusRunning, "", 0, 0, true, "running · starting"},
		{store.StatusRunning, "<b>made-up</b>", 1, 0, false, "running · starting"},
		{store.StatusPaused, "rebuttal", 1, 1, false, "paused after round 1"},
		{store.StatusQueued, "rebuttal", 1, 0, false, "queued · resumes after Rebuttals (round 1)"},
		{store.StatusQueued, "", 0, 0, true, "queued"},
		{store.StatusDecided, "decision", 0, 0, false, "decided"},
		{store.StatusFailed, "rebuttal", 2, 0, false, "failed"},
	} {
		if got := phaseLabel(c.status, c.phase, c.round, c.paused, c.pending); got != c.want {
			t.Errorf("phaseLabel(%q, %q, %d, %d, %v) = %q, want %q", c.status, c.phase, c.round, c.paused, c.pending, got, c.want)
		}
	}
}

// A page of debates becomes pull requests in the order of their latest debates; a pull
// request's later rows (older debates, or the debate under a newer job not begun) fold under it.
func TestGroupByPull(t *testing.T) {
	at := time.Unix(1_700_000_000, 0)
	row := func(id, repo string, pr, sec int, pending bool) store.Listed {
		return store.Listed{Debate: store.Debate{ID: id, Repository: repo, PRNumber: pr, StartedAt: at.Add(time.Duration(sec) * time.Second)}, Pending: pending}
	}
	rows := []store.Listed{
		row("job-9", "acme/shop", 7, 9, true),
		row("d8", "acme/shop", 8, 8, false),
		row("d7", "acme/shop", 7, 7, false),
		row("o7", "acme/other", 7, 6, false),
		row("d5", "acme/shop", 8, 5, false),
	}
	order, by := groupByPull(rows)
	want := []store.Pull{{Repository: "acme/shop", Number: 7}, {Repository: "acme/shop", Number: 8}, {Repository: "acme/other", Number: 7}}
	if !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	ids := func(ls []store.Listed) string {
		var s []string
		for _, l := range ls {
			s = append(s, l.ID)
		}
		return strings.Join(s, ",")
	}
	for p, w := range map[store.Pull]string{want[0]: "job-9,d7", want[1]: "d8,d5", want[2]: "o7"} {
		if got := ids(by[p]); got != w {
			t.Errorf("%v holds %s, want %s", p, got, w)
		}
	}
	if order, by := groupByPull(nil); len(order) != 0 || len(by) != 0 {
		t.Errorf("an empty page has groups: %v", order)
	}
}

// Each rate is judged in its own direction: consensus is good high, reversals and automatic
// escalations are good low; 100% automatic escalations is poor (red), never green; a rate over
// nothing has no verdict. The verdict is a word as well as a colour.
func TestRateVerdicts(t *testing.T) {
	for _, c := range []struct {
		spec rateSpec
		rate float64
		over int
		want string
	}{
		{autoEscalationRate, 1, 5, verdictPoor},
		{autoEscalationRate, 0.36, 5, verdictPoor},
		{autoEscalationRate, 0.35, 5, verdictFair},
		{autoEscalationRate, 0.15, 5, verdictGood},
		{autoEscalationRate, 0, 5, verdictGood},
		{autoEscalationRate, 0, 0, verdictNoData},
		{consensusRate, 1, 3, verdictGood},
		{consensusRate, 0.7, 3, verdictGood},
		{consensusRate, 0.5, 3, verdictFair},
		{consensusRate, 0.1, 3, verdictPoor},
		{reversalRate, 0, 0, verdictNoData},
		{reversalRate, 0.05, 4, verdictGood},
		{reversalRate, 0.2, 4, verdictFair},
		{reversalRate, 0.5, 4, verdictPoor},
	} {
		b := rateBarOf(c.spec, c.rate, c.over)
		if b.Verdict != c.want {
			t.Errorf("%s at %.2f over %d: %s, want %s", c.spec.Label, c.rate, c.over, b.Verdict, c.want)
		}
		if b.Colour != verdictColours[c.want] {
			t.Errorf("%s at %.2f is drawn %s, want %s", c.spec.Label, c.rate, b.Colour, verdictColours[c.want])
		}
	}
	full := rateBarOf(autoEscalationRate, 1, 10)
	if full.Colour == verdictColours[verdictGood] || full.Value != "100%" || full.Width != 200 {
		t.Errorf("100%% automatic escalations drawn as %+v", full)
	}
	none := rateBarOf(reversalRate, 0, 0)
	if none.Value != "–" || none.Width != 0 {
		t.Errorf("a rate over nothing is drawn as %+v", none)
	}
	if !strings.Contains(autoEscalationRate.Direction(), "lower is better") || !strings.Contains(consensusRate.Direction(), "higher is better") {
		t.Error("the legend does not say which way each rate is good")
	}
}

// A finding's line links to GitHub at the debated head, its path escaped; a path that climbs
// out of the tree, an absolute one, a head that is no commit or a malformed repository gets no
// link.
func TestLineURL(t *testing.T) {
	d := testDashboard()
	sha := "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct {
		repo, sha, path string
		line            int
		want            string
	}{
		{"acme/shop", sha, "internal/export/users.go", 30, "https://github.example/acme/shop/blob/" + sha + "/internal/export/users.go#L30"},
		{"acme/shop", sha, "docs/a file#1?.md", 2, "https://github.example/acme/shop/blob/" + sha + "/docs/a%20file%231%3F.md#L2"},
		{"acme/shop", sha, "go.mod", 0, "https://github.example/acme/shop/blob/" + sha + "/go.mod"},
		{"acme/shop", sha, "../../etc/passwd", 1, ""},
		{"acme/shop", sha, "/etc/passwd", 1, ""},
		{"acme/shop", sha, "a//b.go", 1, ""},
		{"acme/shop", sha, "", 1, ""},
		{"acme/shop", "main", "a.go", 1, ""},
		{"acme/shop", "", "a.go", 1, ""},
		{"acme/shop/extra", sha, "a.go", 1, ""},
		{"javascript:alert(1)//x", sha, "a.go", 1, ""},
		{"", sha, "a.go", 1, ""},
	} {
		if got := d.lineURL(c.repo, c.sha, c.path, c.line); got != c.want {
			t.Errorf("lineURL(%q, %q, %q, %d) = %q, want %q", c.repo, c.sha, c.path, c.line, got, c.want)
		}
	}
}

// The page's opening lists the findings most severe first (mitigations are no findings), each
// linked to its line and with its line of code, secrets redacted; beyond maxFindings they are
// counted; a decided debate says its decision in words, an undecided one where it is.
func TestLeadOf(t *testing.T) {
	d := testDashboard()
	sha := "abcdef1234567"
	tr := &toulmin.Transcript{Record: voting.Record{Decision: voting.RequestChanges,
		RequiredChanges: []string{"store/users.go:41: use a parameterised query", "add tests that cover the export", "../../etc/passwd:1: read it"}}}
	tr.Evidence = []toulmin.Evidence{
		{Rule: "style", Severity: voting.SeverityLow, Path: "b.go", Line: 9, Message: "naming", Snippet: "var x_y = 1\n"},
		{Rule: "sql-injection", Severity: voting.SeverityCritical, Path: "store/users.go", Line: 41, Message: "query built with Sprintf",
			Snippet: `token := "ghp_R7xQ2mN8vK4pL9sT3wY6zB1cD5fH0jA2eG4i"`},
		{Rule: "path-check", Severity: voting.SeverityInfo, Path: "a.go", Line: 3, Mitigates: "path-traversal"},
		{Rule: "body-close", Severity: voting.SeverityHigh, Path: "client.go", Line: 12, Message: "response body not closed"},
	}
	l := d.leadOf(tr, "acme/shop", sha, store.StatusDecided)
	if l.Decision != "Changes requested" || l.Tone != "poor" || l.Progress != "" {
		t.Errorf("decision %q (%s), progress %q", l.Decision, l.Tone, l.Progress)
	}
	var rules []string
	for _, f := range l.Findings {
		rules = append(rules, f.Rule)
	}
	if !slices.Equal(rules, []string{"sql-injection", "body-close", "style"}) {
		t.Fatalf("findings %v, want most severe first, without the mitigation", rules)
	}
	first := l.Findings[0]
	if first.Link != "https://github.example/acme/shop/blob/"+sha+"/store/users.go#L41" || first.Location != "store/users.go:41" {
		t.Errorf("the first finding links to %q (%s)", first.Link, first.Location)
	}
	if strings.Contains(first.Excerpt, "ghp_R7xQ2mN8vK4pL9sT3wY6zB1cD5fH0jA2eG4i") || !strings.Contains(first.Excerpt, "token :=") {
		t.Errorf("the excerpt is not the redacted line: %q", first.Excerpt)
	}
	if len(l.Required) != 3 {
		t.Fatalf("%d required changes, want 3", len(l.Required))
	}
	r := l.Required[0]
	if r.Text != "use a parameterised query" || r.Location != "store/users.go:41" || r.Link != first.Link || r.Line != 41 {
		t.Errorf("the first required change reads %+v", r)
	}
	if !strings.Contains(r.Excerpt, "token :=") || strings.Contains(r.Excerpt, "ghp_R7xQ2mN8vK4pL9sT3wY6zB1cD5fH0jA2eG4i") {
		t.Errorf("the first required change's line is not the finding's, redacted: %q", r.Excerpt)
	}
	for _, r := range l.Required[1:] {
		if r.Link != "" || r.Location != "" || r.Excerpt != "" {
			t.Errorf("a required change without a line GitHub can show is linked: %+v", r)
		}
	}
	if l.Required[2].Text != "../../etc/passwd:1: read it" {
		t.Errorf("an unlinked required change lost its text: %q", l.Required[2].Text)
	}
	if l.Findings[2].Excerpt != "var x_y = 1" {
		t.Errorf("the excerpt keeps its line ending: %q", l.Findings[2].Excerpt)
	}

	many := &toulmin.Transcript{Timeline: []toulmin.PhaseRecord{{Phase: toulmin.PhaseOpening}, {Phase: toulmin.PhaseRebuttal, Round: 1}}}
	for i := range maxFindings + 7 {
		many.Evidence = append(many.Evidence, toulmin.Evidence{Rule: fmt.Sprint("r", i), Severity: voting.SeverityMedium, Path: "x.go", Line: i + 1})
	}
	l = d.leadOf(many, "acme/shop", sha, store.StatusRunning)
	if len(l.Findings) != maxFindings || l.More != 7 {
		t.Errorf("%d findings shown and %d more, want %d and 7", len(l.Findings), l.More, maxFindings)
	}
	if l.Decision != "" || l.Progress != "running · Rebuttals (round 1) done" {
		t.Errorf("an undecided debate reads %q, %q", l.Decision, l.Progress)
	}
}
