package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// sessionCookie signs login in and returns the session cookie, to call the handler directly.
func (e *env) sessionCookie(login string) *http.Cookie {
	c := e.signIn(login)
	for _, ck := range c.Jar.Cookies(mustURL(e.url)) {
		if ck.Name == "debatebot_session" {
			return ck
		}
	}
	e.t.Fatal("no session cookie")
	return nil
}

// serve calls the dashboard's handler in process (no network), as a signed-in browser would.
func (e *env) serve(b *testing.B, ck *http.Cookie, path string) string {
	req := httptest.NewRequest(http.MethodGet, "https://debatebot.example.com"+path, nil)
	req.AddCookie(ck)
	rec := httptest.NewRecorder()
	e.d.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("%s answered %d: %s", path, rec.Code, rec.Body.String())
	}
	return rec.Body.String()
}

// bigDebate is a decided debate of 100 arguments: 20 openings, 40 rebuttals of them over two
// rounds, 20 clarifications and 20 final arguments, with their grounds, quality and stances.
func bigDebate(id string) *toulmin.Transcript {
	t := transcript(id, "A large change", 0)
	t.Arguments, t.Timeline = nil, nil
	start := t.StartedAt
	agents := []string{"security", "performance", "architecture", "maintainability"}
	phase := func(kind toulmin.PhaseKind, round, n int, target func(i int) string) {
		t.Timeline = append(t.Timeline, toulmin.PhaseRecord{Phase: kind, Round: round, StartedAt: start, EndedAt: start.Add(time.Second), Status: toulmin.StatusCompleted})
		for i := range n {
			a := toulmin.Argument{ID: fmt.Sprintf("%s-%d-%d", kind, round, i), Agent: agents[i%len(agents)], Phase: kind, Round: round,
				Claim:   fmt.Sprintf("Claim %d of %s: the handler at internal/x/file%d.go builds a query from request input.", i, kind, i),
				Grounds: []toulmin.Ground{{Path: fmt.Sprintf("internal/x/file%d.go", i), Line: 10 + i, Text: "query := fmt.Sprintf(\"SELECT ... %s\", input)"}},
				Warrant: "Input in a query lets a caller change it.", Backing: []toulmin.Backing{{Reference: "CWE-89", Evidence: fmt.Sprintf("E%d", i)}},
				Qualifier: toulmin.Qualifier{Confidence: 0.8, Text: "static evidence"}, Rebuttal: "unless the input is a constant", Severity: voting.SeverityHigh,
				Actions: []toulmin.Action{{Text: "use placeholders", Path: fmt.Sprintf("internal/x/file%d.go", i), Line: 10 + i, Required: true}},
				Quality: toulmin.Quality{Score: 0.8, Checks: []toulmin.Check{{Criterion: "specific", Passed: true}, {Criterion: "evidence_based", Passed: true}, {Criterion: "actionable", Passed: false, Reason: "no line"}}}}
			if target != nil {
				a.Target, a.Steelman = target(i), "The strongest form of the claim."
			}
			t.Arguments = append(t.Arguments, a)
		}
		for _, ag := range agents {
			t.Stances = append(t.Stances, toulmin.Stance{Agent: ag, Phase: kind, Round: round, Position: toulmin.Position{Vote: voting.RequestChanges, Confidence: 0.7, Reason: "the query"}})
		}
	}
	opening := func(i int) string { return fmt.Sprintf("%s-0-%d", toulmin.PhaseOpening, i) }
	phase(toulmin.PhaseOpening, 0, 20, nil)
	phase(toulmin.PhaseRebuttal, 1, 20, opening)
	phase(toulmin.PhaseClarification, 1, 20, func(i int) string { return fmt.Sprintf("%s-1-%d", toulmin.PhaseRebuttal, i) })
	phase(toulmin.PhaseRebuttal, 2, 20, opening)
	phase(toulmin.PhaseFinal, 0, 20, nil)
	for i := range 20 {
		t.Points = append(t.Points, toulmin.Point{Target: opening(i), Point: "the query", Author: "security", Challengers: []string{"performance"}, State: "maintained by both sides"})
		t.Record.ScoringMatrix = append(t.Record.ScoringMatrix, voting.ScoringRow{Point: "the query", Winner: "security", Confidence: 0.7, Evidence: "E1"})
	}
	t.Record.Decision, t.Record.ConsensusLevel = voting.RequestChanges, voting.LevelConsensus
	return t
}

// BenchmarkDebatePage renders the page of a decided debate of 100 arguments, from the store, for
// a signed-in user whose access is cached (target: under 50 ms).
func BenchmarkDebatePage(b *testing.B) {
	e := newEnvWith(b, func(tb testing.TB, st *store.Store) {
		tr := bigDebate("big")
		cp, _ := json.Marshal(tr)
		res, err := st.Enqueue(context.Background(), "del-big", "pull_request", &store.Job{Key: "big", PR: "acme/shop#9", Kind: "review", Payload: []byte(`{}`)})
		if err != nil {
			tb.Fatal(err)
		}
		if err := st.FinishDebate(context.Background(), &store.Debate{ID: "big", JobID: res.JobID, Repository: "acme/shop", PRNumber: 9, Protocol: "extended", Decision: "request_changes",
			Phases: len(tr.Timeline), Checkpoint: cp, Record: []byte("decision: request_changes\n"), StartedAt: tr.StartedAt, EndedAt: tr.StartedAt.Add(time.Minute)}); err != nil {
			tb.Fatal(err)
		}
	})
	ck := e.sessionCookie("alice")
	page := e.serve(b, ck, "/debates/big")
	if n := strings.Count(page, `<article class="arg"`); n != 100 {
		b.Fatalf("the page shows %d arguments, want 100", n)
	}
	for b.Loop() {
		e.serve(b, ck, "/debates/big")
	}
	b.ReportMetric(float64(len(page)), "page-bytes")
}

// BenchmarkList reads pages of the list from a store of 10,000 debates of 2,500 pull requests in
// 20 repositories (each page's pull requests with their earlier debates folded), for a signed-in
// user who can read them all (target: under 100 ms).
func BenchmarkList(b *testing.B) {
	e := manyDebates(b)
	ck := e.sessionCookie("alice")
	first := e.serve(b, ck, "/")
	if n := strings.Count(first, `<tbody class="pull">`); n != 50 {
		b.Fatalf("the first page lists %d pull requests, want 50", n)
	}
	if n := strings.Count(first, `href="/debates/`); n != 200 {
		b.Fatalf("the first page links %d debates, want 200 (50 pull requests of 4 debates)", n)
	}
	deep := fmt.Sprintf("/?after=%d.debate-08750", time.Unix(1_700_000_000, 0).Add(8750*time.Second).UnixNano())
	for name, path := range map[string]string{
		"first-page": "/", "page-after-8750": deep,
		"repository-and-status": "/?repository=" + url.QueryEscape("acme/repo07") + "&status=escalated",
		"search":                "/?q=" + url.QueryEscape("change 12"),
	} {
		b.Run(name, func(b *testing.B) {
			if !strings.Contains(e.serve(b, ck, path), `href="/debates/`) {
				b.Fatalf("%s lists nothing", path)
			}
			for b.Loop() {
				e.serve(b, ck, path)
			}
		})
	}
}

// manyDebates is the dashboard over a store of 10,000 decided debates in 20 repositories, all of
// which alice can read.
func manyDebates(b *testing.B) *env {
	e := newEnvWith(b, func(tb testing.TB, st *store.Store) {
		ctx := context.Background()
		base := time.Unix(1_700_000_000, 0)
		for i := range 10000 {
			d := &store.Debate{ID: fmt.Sprintf("debate-%05d", i), Repository: fmt.Sprintf("acme/repo%02d", i%20), PRNumber: i % 2500, Trigger: "pull_request.opened", Protocol: "standard",
				Checkpoint: []byte(fmt.Sprintf(`{"title":"Change %d of the service"}`, i%2500)),
				Decision:   []string{"approve", "escalate", "request_changes"}[i%3], Phases: 6, StartedAt: base.Add(time.Duration(i) * time.Second),
				EndedAt: base.Add(time.Duration(i)*time.Second + 5*time.Second), Prompt: 1000, Completion: 200, ConsensusLevel: "consensus"}
			if err := st.FinishDebate(ctx, d); err != nil {
				tb.Fatal(err)
			}
		}
	})
	for i := range 20 {
		e.gh.Permissions[fmt.Sprintf("acme/repo%02d:alice", i)] = "read"
	}
	return e
}

// BenchmarkMetrics draws the metrics page of 20 repositories of 500 debates each, for a
// signed-in user whose access is cached.
func BenchmarkMetrics(b *testing.B) {
	e := manyDebates(b)
	ck := e.sessionCookie("alice")
	page := e.serve(b, ck, "/metrics-overview")
	if n := strings.Count(page, "acme/repo"); n < 20 {
		b.Fatalf("the page names %d repositories, want 20", n)
	}
	for b.Loop() {
		e.serve(b, ck, "/metrics-overview")
	}
}
