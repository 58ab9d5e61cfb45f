package render_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/review/reviewtest"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// A sentence starts with a capital unless its first word is code.
func TestSentenceKeepsIdentifiersCase(t *testing.T) {
	for _, c := range []struct{ in, snippet, want string }{
		{"h.db.QueryRow runs a database round trip", "", "h.db.QueryRow runs a database round trip"},
		{"os.Open opens a path derived from request input", "", "os.Open opens a path derived from request input"},
		{"userID is never checked", "", "userID is never checked"},
		{"rows_affected is ignored", "", "rows_affected is ignored"},
		{"err is dropped", "\terr := f.Close()", "err is dropped"},
		{"the error returned by f.Close is not checked", "\tf.Close()", "The error returned by f.Close is not checked"},
		{"new Go module dependency", "", "New Go module dependency"},
		{"TODO added", "", "TODO added"},
		{"", "", ""},
	} {
		if got := render.Sentence(c.in, c.snippet); got != c.want {
			t.Errorf("Sentence(%q, %q) = %q, want %q", c.in, c.snippet, got, c.want)
		}
	}
}

// The offline debate of the example never capitalises a code identifier in a claim.
func TestClaimsKeepIdentifiersCase(t *testing.T) {
	tr := reviewtest.RunDebate(t, reviewtest.ReadChange(t, filepath.Join("..", "..", "examples", "admin-export.diff")), toulmin.ProtocolStandard)
	found := false
	for _, a := range tr.Arguments {
		for _, bad := range []string{"H.db.", "Os.Open"} {
			if strings.Contains(a.Claim, bad) {
				t.Errorf("%s claims %q", a.ID, a.Claim)
			}
		}
		found = found || strings.HasPrefix(a.Claim, "h.db.Query")
	}
	if !found {
		t.Errorf("no claim starts with h.db.Query: the example's findings were not argued")
	}
}

// dissentTranscript is a debate that decided decision, with four agents: two that argued and
// voted request_changes and approve, one that voted approve with nothing to say, and one the
// record lists though it voted as decided.
func dissentTranscript(decision voting.Option) *toulmin.Transcript {
	tr := &toulmin.Transcript{
		Participants: []toulmin.Participant{{Name: "security", Title: "Security Stakeholder"}, {Name: "performance", Title: "Performance Stakeholder"},
			{Name: "architecture", Title: "Architecture Stakeholder"}, {Name: "core", Title: "Core Maintainer"}},
		Arguments: []toulmin.Argument{{ID: "SS-1", Agent: "security", Claim: "h.db.Query receives SQL built from strings"},
			{ID: "PS-1", Agent: "performance", Claim: "one round trip per row"}, {ID: "CM-1", Agent: "core", Claim: "request changes"}},
		Shares: map[voting.Option]float64{voting.RequestChanges: 0.7, voting.Approve: 0.3},
	}
	tr.Record.Decision = decision
	tr.Record.Votes = []voting.Ballot{{Agent: "security", Vote: voting.RequestChanges}, {Agent: "performance", Vote: voting.Approve},
		{Agent: "architecture", Vote: voting.Approve}, {Agent: "core", Vote: voting.RequestChanges}}
	tr.Record.DissentingOpinions = []voting.Dissent{{Agent: "performance", Concern: "votes approve: the loop is small"},
		{Agent: "architecture", Concern: "votes approve: no architecture concerns"}, {Agent: "core", Concern: "votes request_changes: SQL"}}
	return tr
}

// Dissent lists only the agents whose vote differs from the decision and that argued something;
// an escalated debate is compared with the vote's winner.
func TestDissentThatMatters(t *testing.T) {
	for _, decision := range []voting.Option{voting.RequestChanges, voting.Escalate} {
		var names []string
		for _, d := range render.Dissent(dissentTranscript(decision)) {
			names = append(names, d.Agent)
		}
		if strings.Join(names, ",") != "performance" {
			t.Errorf("decision %s: dissent %v, want performance only", decision, names)
		}
	}
	tr := dissentTranscript(voting.Approve)
	var names []string
	for _, d := range render.Dissent(tr) {
		names = append(names, d.Agent)
	}
	if strings.Join(names, ",") != "core" {
		t.Errorf("decision approve: dissent %v, want core (it argued and voted otherwise)", names)
	}
	s, err := render.SummaryComment(dissentTranscript(voting.RequestChanges), render.SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s, "- Performance Stakeholder (approve): the loop is small") || strings.Contains(s, "Architecture Stakeholder") {
		t.Errorf("summary's dissent:\n%s", s)
	}
}

// Two findings on one line are one comment, each with its own required change; a required change
// on a line no finding carries is a comment of its own.
func TestSameLineFindingsMerge(t *testing.T) {
	tr := &toulmin.Transcript{Evidence: []toulmin.Evidence{
		{ID: "E1", Rule: rules.RuleIgnoredError, Severity: voting.SeverityMedium, Path: "a.go", Line: 47, Message: "the error is not checked", Snippet: "h.db.QueryRow(q).Scan(&n)"},
		{ID: "E2", Rule: rules.RuleCallInLoop, Severity: voting.SeverityMedium, Path: "a.go", Line: 47, Message: "h.db.QueryRow runs on every iteration", Snippet: "h.db.QueryRow(q).Scan(&n)"},
		{ID: "E3", Rule: rules.RuleTodo, Severity: voting.SeverityLow, Path: "a.go", Line: 46, Message: "TODO added"},
	}}
	tr.Record.RequiredChanges = []string{
		"a.go:47: " + rules.Rules[rules.RuleCallInLoop].Fix, // the second finding's fix, listed first
		"a.go:47: " + rules.Rules[rules.RuleIgnoredError].Fix,
		"a.go:12: document the exported type",
	}
	onLines, noLine := render.InlineFindings(tr)
	if len(noLine) != 0 || len(onLines) != 3 {
		t.Fatalf("on lines %+v, no line %+v; want the two findings and the lone required change", onLines, noLine)
	}
	for _, f := range onLines[:2] {
		if len(f.Required) != 1 || f.Required[0] != rules.Rules[f.Rule].Fix {
			t.Errorf("%s carries %q, want its own fix only", f.Rule, f.Required)
		}
	}
	comments := render.ByLine(onLines)
	if len(comments) != 2 || len(comments[0].Findings) != 2 || comments[1].Line != 12 {
		t.Fatalf("comments %+v, want the two findings of :47 in one and :12 alone", comments)
	}
	body := comments[0].Body()
	if strings.Count(body, "<!-- debatebot:finding ") != 2 || strings.Count(body, "**Required change:**") != 2 || !strings.Contains(body, "\n---\n") {
		t.Errorf("merged comment:\n%s", body)
	}
	// The low TODO has no comment: the check run annotates it.
	keys := render.FindingKeys(tr)
	if len(keys) != 3 || keys[0] != onLines[0].Key || keys[1] != onLines[1].Key {
		t.Errorf("finding keys %v do not match the comments' %s, %s", keys, onLines[0].Key, onLines[1].Key)
	}
}

// The decision comment is short: the decision in a sentence, the votes, what to do next, then
// the record folded once.
func TestDecisionCommentIsShort(t *testing.T) {
	tr := reviewtest.RunDebate(t, reviewtest.ReadChange(t, filepath.Join("..", "..", "examples", "admin-export.diff")), toulmin.ProtocolStandard)
	d, err := render.DecisionComment(tr)
	if err != nil {
		t.Fatal(err)
	}
	fold := strings.Index(d, "<details><summary>Decision record (YAML)</summary>")
	t.Logf("decision comment: %d characters, %d above the record\n%s", len(d), fold, d[:max(fold, 0)])
	if fold < 0 || fold > 1500 || strings.Count(d, "```yaml") != 1 || !strings.HasSuffix(d, "```\n\n</details>\n") {
		t.Fatalf("decision comment:\n%s", d)
	}
	for _, want := range []string{render.DecisionMarker + "\n## debatebot decision: Request changes\n\nThe reviewers ask for 3 change(s) before this is merged (75% of the weighted vote, consensus).",
		"- Core Maintainer (core maintainer, weight 5): request changes", "**Next**\n\nMake the required changes"} {
		if !strings.Contains(d[:fold], want) {
			t.Errorf("decision comment lacks %q", want)
		}
	}
	rec, err := voting.ParseRecord([]byte(d[strings.Index(d, "```yaml\n")+8 : strings.LastIndex(d, "```")]))
	if err != nil || rec.Decision != voting.RequestChanges {
		t.Errorf("the folded record does not parse back: %v", err)
	}
}

// However long the model's text and however many its changes, the summary stays under 3,000
// characters above its folds and 12,000 in all, and its folds stay balanced.
func TestSummaryBoundsWithLongModelText(t *testing.T) {
	long := strings.Repeat("the handler builds its query from the request and sends it to the database ", 30)
	tr := &toulmin.Transcript{Title: long, Question: "", Protocol: "standard", Shares: map[voting.Option]float64{voting.RequestChanges: 0.6, voting.Approve: 0.4}}
	for i := 0; i < 8; i++ {
		name := fmt.Sprintf("agent%d", i)
		tr.Participants = append(tr.Participants, toulmin.Participant{Name: name, Title: fmt.Sprintf("Stakeholder %d", i)})
		tr.Record.Votes = append(tr.Record.Votes, voting.Ballot{Agent: name, Vote: voting.Approve})
		tr.Record.DissentingOpinions = append(tr.Record.DissentingOpinions, voting.Dissent{Agent: name, Concern: "votes approve: " + long})
	}
	for _, p := range []toulmin.PhaseKind{toulmin.PhaseEvidence, toulmin.PhaseOpening, toulmin.PhaseRebuttal, toulmin.PhaseFinal, toulmin.PhaseSynthesis} {
		tr.Timeline = append(tr.Timeline, toulmin.PhaseRecord{Phase: p, Round: 1, Status: toulmin.StatusCompleted, Notes: []string{long, long}})
		for i := 0; i < 40; i++ {
			tr.Arguments = append(tr.Arguments, toulmin.Argument{ID: fmt.Sprintf("%s-%d", p, i), Phase: p, Round: 1, Agent: fmt.Sprintf("agent%d", i%8), Claim: fmt.Sprintf("%d %s", i, long)})
		}
	}
	for i := 0; i < 200; i++ {
		tr.Files = append(tr.Files, toulmin.ChangedFile{Path: fmt.Sprintf("internal/%s/file%03d.go", strings.Repeat("deep/", 20), i), Status: "added", Added: 40})
		tr.Record.RequiredChanges = append(tr.Record.RequiredChanges, fmt.Sprintf("internal/file%03d.go:%d: %s", i, i+1, long))
	}
	tr.Record.Decision = voting.RequestChanges
	s, err := render.SummaryComment(tr, render.SummaryOptions{BlobURL: "https://github.com/o/r/blob/" + strings.Repeat("a", 40) + "/", Link: "https://bot.example/debates/deb-1"})
	if err != nil {
		t.Fatal(err)
	}
	top := summaryTopOf(t, s)
	t.Logf("summary: %d characters above the folds, %d in all", len(top), len(s))
	if len(top) >= render.MaxSummaryTop || len(s) >= render.MaxSummaryChars || strings.Count(s, "<details>") != strings.Count(s, "</details>") {
		t.Errorf("summary: %d characters above the folds, %d in all, %d <details> and %d </details>", len(top), len(s), strings.Count(s, "<details>"), strings.Count(s, "</details>"))
	}
	if !strings.Contains(top, "more required change(s), on the debate's page") || !strings.Contains(top, "[its page](https://bot.example/debates/deb-1)") {
		t.Errorf("the summary does not count what it left to the debate's page, or lost its link:\n%s", top)
	}
}
