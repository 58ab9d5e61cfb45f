package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/dashboard"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// headSHA is the head the seeded debates of acme/shop#7 were held on.
const headSHA = "4f2a9c1e7b3d5a8f0c6e2b9d1a7f3c5e8b0d2a4c"

// seedHistory stores acme/shop#7 ("Add admin user export") debated three times, the latest
// requesting changes over two findings; acme/shop#8 ("Fix 100% CPU <b>spin</b>") running, its
// checkpoint after rebuttal round 2; acme/private#3 paused; and acme/private#4 escalated
// without anyone asking.
func seedHistory(t testing.TB, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	base := time.Unix(1_700_000_000, 0).UTC()
	put := func(id, repo string, pr int, at time.Duration, tr *toulmin.Transcript, decision string, cost float64) {
		res, err := st.Enqueue(ctx, "del-"+id, "pull_request", &store.Job{Key: "key-" + id, PR: fmt.Sprintf("%s#%d", repo, pr), Kind: "review", Payload: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		tr.StartedAt = base.Add(at)
		cp, _ := json.Marshal(tr)
		d := &store.Debate{ID: id, JobID: res.JobID, Repository: repo, PRNumber: pr, HeadSHA: headSHA, Trigger: "pull_request.opened", Protocol: "extended",
			Phases: len(tr.Timeline), Checkpoint: cp, StartedAt: tr.StartedAt}
		if err := st.SaveCheckpoint(ctx, d); err != nil {
			t.Fatal(err)
		}
		switch decision {
		case "":
		case "paused":
			if err := st.PauseDebate(ctx, id, tr.Rounds, tr.StartedAt, tr.StartedAt.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		default:
			tr.Record = voting.Record{DebateID: id, HeadSHA: headSHA, Decision: voting.Option(decision), ConsensusLevel: voting.LevelConsensus, ConsensusScore: 0.8,
				RequiredChanges: []string{"internal/export/users.go:30: Pass the user id as a query parameter", "Close the response body"}}
			if decision == "escalate" {
				tr.Record.RequiredChanges = nil
			}
			cp, _ = json.Marshal(tr)
			d.Checkpoint, d.Decision, d.EndedAt, d.Record, d.CostUSD = cp, decision, tr.StartedAt.Add(4*time.Second), []byte("decision: "+decision+"\n"), cost
			d.Prompt, d.Completion, d.ConsensusLevel = 1200, 300, "consensus"
			if err := st.FinishDebate(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
	}
	withFindings := func(tr *toulmin.Transcript) *toulmin.Transcript {
		tr.Evidence = []toulmin.Evidence{
			{ID: "E1", Rule: "go-sql-injection", Stakeholder: "security", Severity: voting.SeverityCritical, Path: "internal/export/users.go", Line: 30,
				Message: "The query is built with fmt.Sprintf from the request", Snippet: `rows, err := h.db.Query(fmt.Sprintf("SELECT * FROM users WHERE id = %s", id)) // ` + secretToken},
			{ID: "E2", Rule: "go-body-not-closed", Stakeholder: "reliability", Severity: voting.SeverityHigh, Path: "internal/export/client.go", Line: 12,
				Message: "The response body is never closed", Snippet: "resp, err := http.Get(u)"},
		}
		return tr
	}
	put("shop-older-2", "acme/shop", 7, 0, transcript("shop-older-2", "Add admin user export", 1), "request_changes", 0.25)
	put("shop-older-1", "acme/shop", 7, time.Minute, transcript("shop-older-1", "Add admin user export", 1), "request_changes", 0.25)
	put("shop-debate", "acme/shop", 7, 2*time.Minute, withFindings(longer(transcript("shop-debate", "Add admin user export", 2))), "request_changes", 1)
	put("shop-running", "acme/shop", 8, 3*time.Minute, transcript("shop-running", "Fix 100% CPU <b>spin</b>", 2), "", 0)
	put("private-debate", "acme/private", 3, 90*time.Second, transcript("private-debate", "Rotate the signing keys", 1), "paused", 0)
	put("private-escalated", "acme/private", 4, 30*time.Second, transcript("private-escalated", "Drop the legacy API", 1), "escalate", 0)
	// The running debate's job is leased by a worker.
	for {
		j, err := st.Claim(ctx, "worker", time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if j == nil {
			t.Fatal("the running debate's job was never claimed")
		}
		if j.PR == "acme/shop#8" {
			return
		}
	}
}

// longer gives a debate the arguments a real one has: every stakeholder argues in every phase,
// at length, so that its page is as long as a real debate's.
func longer(tr *toulmin.Transcript) *toulmin.Transcript {
	why := strings.Repeat("The handler reads the id from the query string and passes it on unchecked; ", 4)
	for _, p := range tr.Timeline {
		for _, a := range []string{"security", "core_maintainer"} {
			for i := 1; i <= 3; i++ {
				tr.Arguments = append(tr.Arguments, toulmin.Argument{ID: fmt.Sprintf("%s-%s-%d-%d", a, p.Phase, p.Round, i), Agent: a, Phase: p.Phase, Round: p.Round,
					Claim: fmt.Sprintf("Point %d of %s in %s: %s", i, a, p.Phase, why), Warrant: why,
					Grounds:   []toulmin.Ground{{Path: "internal/export/users.go", Line: 30 + i, Text: why}},
					Qualifier: toulmin.Qualifier{Confidence: 0.7}, Quality: toulmin.Quality{Score: 0.7}})
			}
		}
	}
	return tr
}

var pullRe = regexp.MustCompile(`(?s)<tbody class="pull">.*?</tbody>`)

// The list shows pull requests, each with its title and its latest debate, the earlier ones
// folded under it; a running debate shows its phase.
func TestListGroupsByPull(t *testing.T) {
	e := newEnvWith(t, seedHistory)
	c := e.signIn("alice")
	status, page := get(t, c, e.url+"/")
	if status != 200 {
		t.Fatalf("the list answered %d: %s", status, page)
	}
	pulls := pullRe.FindAllString(page, -1)
	if len(pulls) != 4 {
		t.Fatalf("%d pull requests listed, want 4 (#8, #7, private #3, private #4): %s", len(pulls), page)
	}
	// Newest first: #8 runs, #7's latest debate, the paused #3, the escalated #4.
	for i, want := range []string{"/debates/shop-running", "/debates/shop-debate", "/debates/private-debate", "/debates/private-escalated"} {
		if !strings.Contains(pulls[i], `href="`+want+`"`) {
			t.Errorf("pull request %d is not %s: %s", i, want, pulls[i])
		}
	}
	if !strings.Contains(pulls[0], "running · Rebuttals (round 2) done") || !strings.Contains(pulls[0], "Fix 100% CPU &lt;b&gt;spin&lt;/b&gt;") {
		t.Errorf("the running pull request lacks its phase or its escaped title: %s", pulls[0])
	}
	seven := pulls[1]
	head, history, ok := strings.Cut(seven, "<details>")
	if !ok {
		t.Fatalf("#7's earlier debates are not folded: %s", seven)
	}
	if !strings.Contains(head, ">Add admin user export</a>") || !strings.Contains(head, "Changes requested") {
		t.Errorf("#7's head lacks its title or decision: %s", head)
	}
	if !strings.Contains(history, "<summary>2 earlier debates</summary>") {
		t.Errorf("#7's fold does not count its 2 earlier debates: %s", history)
	}
	if a, b := strings.Index(history, "/debates/shop-older-1"), strings.Index(history, "/debates/shop-older-2"); a < 0 || b < a {
		t.Errorf("#7's earlier debates are not newest first: %s", history)
	}
	if strings.Contains(pulls[0], "<details>") {
		t.Error("a pull request debated once has a fold")
	}
}

// The filters work in the store and come back in the form: free text over titles,
// repositories and numbers, by status and by repository; hostile text is shown escaped, matches
// only itself, is cut to its bound and changes nothing.
func TestListFilters(t *testing.T) {
	e := newEnvWith(t, seedHistory)
	c := e.signIn("alice")
	list := func(query url.Values) (string, []string) {
		t.Helper()
		status, page := get(t, c, e.url+"/?"+query.Encode())
		if status != 200 {
			t.Fatalf("the list with %v answered %d: %s", query, status, page)
		}
		var ids []string
		for _, m := range regexp.MustCompile(`<tbody class="pull">\s*<tr>\s*<td><a class="title" href="/debates/([^"]+)"`).FindAllStringSubmatch(page, -1) {
			ids = append(ids, m[1])
		}
		return page, ids
	}
	all := "shop-running shop-debate private-debate private-escalated"
	for _, c := range []struct {
		name  string
		query url.Values
		want  string
	}{
		{"title", url.Values{"q": {"EXPORT"}}, "shop-debate"},
		{"number", url.Values{"q": {"#8"}}, "shop-running"},
		{"repository text", url.Values{"q": {"acme/priv"}}, "private-debate private-escalated"},
		{"percent is no wildcard", url.Values{"q": {"100%"}}, "shop-running"},
		{"lone percent", url.Values{"q": {"%"}}, "shop-running"},
		{"underscore is no wildcard", url.Values{"q": {"_"}}, ""},
		{"html", url.Values{"q": {"<b>spin</b>"}}, "shop-running"},
		{"script", url.Values{"q": {`"><script>alert(1)</script>`}}, ""},
		{"sql", url.Values{"q": {"' OR '1'='1"}}, ""},
		{"sql drop", url.Values{"q": {"x'); DROP TABLE debates; --"}}, ""},
		{"status", url.Values{"status": {"running"}}, "shop-running"},
		{"status escalated", url.Values{"status": {"escalated"}}, "private-escalated"},
		{"unknown status is ignored", url.Values{"status": {"'; DELETE FROM jobs"}}, all},
		{"repository", url.Values{"repository": {"acme/private"}}, "private-debate private-escalated"},
		{"repository and text", url.Values{"repository": {"acme/private"}, "q": {"legacy"}}, "private-escalated"},
		{"blank text", url.Values{"q": {"   "}}, all},
		{"invalid utf-8 and control characters", url.Values{"q": {"\xffEX\x00PORT\x1b"}}, "shop-debate"},
	} {
		page, ids := list(c.query)
		if got := strings.Join(ids, " "); got != c.want {
			t.Errorf("%s: listed %q, want %q", c.name, got, c.want)
		}
		if q := strings.TrimSpace(store.CleanText(c.query.Get("q"))); q != "" && !strings.Contains(page, `value="`+htmlEscape(q)+`"`) {
			t.Errorf("%s: the search box does not keep %q", c.name, q)
		}
	}
	page, _ := list(url.Values{"q": {`"><script>alert(1)</script>`}})
	if strings.Contains(page, "<script>alert(1)") || !strings.Contains(page, "No debates match the filter") {
		t.Errorf("hostile text is echoed unescaped, or the empty result is not said: %s", page)
	}
	long := strings.Repeat("export ", 2000)
	page, ids := list(url.Values{"q": {long}})
	if !strings.Contains(page, "The search was cut to its first 100 characters.") || len(ids) != 0 {
		t.Errorf("a long search is not cut with a notice (listed %v)", ids)
	}
	if m := regexp.MustCompile(`name="q" id="q" value="([^"]*)"`).FindStringSubmatch(page); m == nil || len(m[1]) != 100 {
		t.Errorf("the search box does not hold the cut text (%v)", m)
	}
	page, ids = list(url.Values{"repository": {"acme/secret"}})
	if !strings.Contains(page, "That repository has no debates you can read") || strings.Join(ids, " ") != all || strings.Contains(page, "acme/secret") {
		t.Errorf("an unreadable repository is not refused plainly: %v", ids)
	}
	// Nothing the filters were given changed the store.
	if _, ids := list(nil); strings.Join(ids, " ") != all {
		t.Errorf("after the hostile filters the list is %v", ids)
	}
}

// A page holds PageSize pull requests; the next page keeps the filters and starts after the
// last one, and a pull request's earlier debates never come back as pull requests of their own.
func TestListPagesKeepTheFilters(t *testing.T) {
	e := newEnvWith(t, seedHistory, func(c *dashboard.Config) { c.PageSize = 2 })
	c := e.signIn("alice")
	heads := regexp.MustCompile(`<tbody class="pull">\s*<tr>\s*<td><a class="title" href="/debates/([^"]+)"`)
	next := regexp.MustCompile(`<a href="([^"]+)" rel="next">`)
	var seen []string
	u := e.url + "/?q=acme"
	for range 5 {
		_, page := get(t, c, u)
		for _, m := range heads.FindAllStringSubmatch(page, -1) {
			seen = append(seen, m[1])
		}
		m := next.FindStringSubmatch(page)
		if m == nil {
			break
		}
		link := strings.ReplaceAll(m[1], "&amp;", "&")
		if !strings.Contains(link, "q=acme") || !strings.Contains(link, "after=") {
			t.Errorf("the next page's link %q drops the search or the cursor", link)
		}
		u = e.url + link
	}
	if got := strings.Join(seen, " "); got != "shop-running shop-debate private-debate private-escalated" {
		t.Errorf("the pages listed %s", got)
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// The debate page opens with the decision, the required changes and the findings, each with
// its line of code (redacted) linked to the line on GitHub at the debated head, before the
// first argument.
func TestDebatePageLeadsWithDecision(t *testing.T) {
	e := newEnvWith(t, seedHistory)
	c := e.signIn("alice")
	status, page := get(t, c, e.url+"/debates/shop-debate")
	if status != 200 {
		t.Fatalf("the page answered %d: %s", status, page)
	}
	order := []string{`id="verdict">Changes requested<`, `id="required"`, "Pass the user id as a query parameter", `id="findings"`, "go-sql-injection", "go-body-not-closed", `class="arg"`}
	last := -1
	for _, want := range order {
		i := strings.Index(page, want)
		if i < 0 {
			t.Fatalf("the page lacks %q", want)
		}
		if i < last {
			t.Errorf("%q comes before what precedes it in %q", want, order)
		}
		last = i
	}
	link := e.gh.URL + "/acme/shop/blob/" + headSHA + "/internal/export/users.go#L30"
	if !strings.Contains(page, `<a href="`+link+`"`) {
		t.Errorf("the finding does not link to %s", link)
	}
	required := regexp.MustCompile(`(?s)<ol id="required">.*?</ol>`).FindString(page)
	if !strings.Contains(required, `<a href="`+link+`" title="this line on GitHub, at the debated head">internal/export/users.go:30</a>: Pass the user id`) ||
		!strings.Contains(required, `<span class="ln">30</span>rows, err := h.db.Query(`) {
		t.Errorf("the required change does not link to its line nor show it: %s", required)
	}
	if !strings.Contains(page, `<span class="ln">30</span>rows, err := h.db.Query(fmt.Sprintf(`) {
		t.Error("the finding lacks its line of code")
	}
	if strings.Contains(page, secretToken) {
		t.Error("the page shows the secret token")
	}
	_, running := get(t, c, e.url+"/debates/shop-running")
	if !strings.Contains(running, `id="verdict">No decision yet<`) || !strings.Contains(running, "running · Rebuttals (round 2) done") {
		t.Errorf("the running debate does not say where it is: %s", running)
	}
}

// Each repository's model cost is shown, and each rate is judged with a word and a colour in
// its own direction: acme/private's 100% automatic escalations is poor and red, not green.
func TestMetricsJudgesRates(t *testing.T) {
	e := newEnvWith(t, seedHistory)
	c := e.signIn("alice")
	status, page := get(t, c, e.url+"/metrics-overview")
	if status != 200 {
		t.Fatalf("the metrics answered %d: %s", status, page)
	}
	costs := regexp.MustCompile(`(?s)<table id="costs">.*?</table>`).FindString(page)
	for _, want := range []string{"<td>acme/shop</td><td>3</td><td>$1.50</td><td>$0.5000</td>", "<td>acme/private</td><td>1</td><td>$0.00</td>", "<th>All</th><th></th><th>$1.50</th>"} {
		if !strings.Contains(costs, want) {
			t.Errorf("the cost table lacks %q: %s", want, costs)
		}
	}
	_, private, ok := strings.Cut(page, "<h2>acme/private</h2>")
	if !ok {
		t.Fatalf("no section for acme/private: %s", page)
	}
	private, _, _ = strings.Cut(private, "</section>")
	auto := regexp.MustCompile(`<g class="rate" data-verdict="([^"]+)"><title>auto-escalation: 100%, ([a-z ]+) \(lower is better[^)]*\)</title>.*?fill="(#[0-9a-f]+)" font-weight="bold">([a-z ]+)</text>`).FindStringSubmatch(private)
	if auto == nil {
		t.Fatalf("acme/private's automatic escalations are not drawn with a verdict: %s", private)
	}
	if auto[1] != "poor" || auto[2] != "poor" || auto[4] != "poor" || auto[3] != "#cf222e" {
		t.Errorf("100%% automatic escalations judged %v", auto[1:])
	}
	if !strings.Contains(private, `data-verdict="no data"><title>reversal: –, no data`) {
		t.Errorf("a reversal rate over no human decision is judged: %s", private)
	}
	if !strings.Contains(page, "auto-escalation</strong>: the share of debates handed to a maintainer without anyone asking; lower is better") {
		t.Error("the legend does not say which way automatic escalations are good")
	}
}

// The pages speak plainly: no internal document names.
func TestPagesSpeakPlainly(t *testing.T) {
	e := newEnvWith(t, seedHistory)
	c := e.signIn("alice")
	jargon := regexp.MustCompile(`(?i)\bseeds?\b|seed \d{3}|DESIGN\.md|protocol document`)
	for _, path := range []string{"/", "/debates/shop-debate", "/debates/shop-running", "/debates/private-debate", "/metrics-overview", "/?q=nothing"} {
		_, page := get(t, c, e.url+path)
		if m := jargon.FindString(page); m != "" {
			t.Errorf("%s says %q", path, m)
		}
	}
}
