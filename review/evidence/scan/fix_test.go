package scan

import (
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/evidence/rules"
)

// fixChange is a Go file of 12 lines whose diff shows lines 2-4 and 9-11: line 3 turns TLS
// verification off, line 10 is changed too.
func fixChange(t *testing.T) *change.Change {
	var base, head strings.Builder
	for i := 1; i <= 12; i++ {
		line := "\tx" + string(rune('a'+i-1)) + " := 1"
		base.WriteString(line + "\n")
		switch i {
		case 3:
			line = "\tcfg := &tls.Config{InsecureSkipVerify: true}"
		case 10:
			line += " // changed"
		}
		head.WriteString(line + "\n")
	}
	c := changetest.Versions(t, [3]string{"a.go", base.String(), head.String()})
	f := c.Files[0]
	f.Hunks = changetest.NarrowHunks(f.Hunks[0].Lines, 1)
	f.Reindex()
	return c
}

// A fix is kept only when it applies to the head inside one hunk and covers the finding's line
// (or lies a few lines from it, and is widened to it); the others are dropped and their findings
// stay, without a suggestion.
func TestRecordKeepsOnlyFixesThatApply(t *testing.T) {
	for name, tc := range map[string]struct {
		line int
		fix  change.LineFix
		want *change.LineFix
	}{
		"applies": {10, change.LineFix{From: 10, To: 10, Old: "\txj := 1 // changed\n", New: "\txj := 2\n"},
			&change.LineFix{From: 10, To: 10, Old: "\txj := 1 // changed\n", New: "\txj := 2\n"}},
		"a line away, widened": {11, change.LineFix{From: 10, To: 10, Old: "\txj := 1 // changed\n", New: "\txj := 2\n"},
			&change.LineFix{From: 10, To: 11, Old: "\txj := 1 // changed\n\txk := 1\n", New: "\txj := 2\n\txk := 1\n"}},
		"outside the hunk":        {6, change.LineFix{From: 6, To: 6, Old: "\txf := 1\n", New: "\txf := 2\n"}, nil},
		"not the head's text":     {10, change.LineFix{From: 10, To: 10, Old: "\txj := 1\n", New: "\txj := 2\n"}, nil},
		"widened out of the hunk": {9, change.LineFix{From: 6, To: 6, Old: "\txf := 1\n", New: "\txf := 2\n"}, nil},
		"changes nothing":         {10, change.LineFix{From: 10, To: 10, Old: "\txj := 1 // changed\n", New: "\txj := 1 // changed\n"}, nil},
	} {
		s := New(fixChange(t))
		s.Record(Finding{Rule: rules.RuleTLSVerifyOff, Source: "go vet", Severity: "medium", Path: "a.go", Line: tc.line, Message: "m", Fix: tc.fix})
		ev := s.Findings()
		if len(ev) != 1 {
			t.Fatalf("%s: the finding was not kept:\n%s", name, dump(ev))
		}
		got := ev[0].Fix
		switch {
		case tc.want == nil && !got.IsZero():
			t.Errorf("%s: fix %+v kept; want it dropped", name, got)
		case tc.want != nil && (got.IsZero() || got.From != tc.want.From || got.To != tc.want.To || got.New != tc.want.New):
			t.Errorf("%s: fix %+v; want lines %d-%d as %q", name, got, tc.want.From, tc.want.To, tc.want.New)
		}
	}
}

// The rule's own fixed line is a suggestion on a line of a hunk, and none on a line the diff does
// not show.
func TestRuleFixIsCheckedLikeAnyOther(t *testing.T) {
	s := New(fixChange(t))
	s.Record(Finding{Rule: rules.RuleTLSVerifyOff, Source: "go-ast", Severity: "high", Path: "a.go", Line: 3, Message: "off"})
	ev := s.Findings()
	if len(ev) != 1 || ev[0].Fix.IsZero() || ev[0].Fix.New != "\tcfg := &tls.Config{InsecureSkipVerify: false}\n" || ev[0].Replacement == "" {
		t.Fatalf("evidence %+v: want the fixed line as its fix", ev)
	}
	c := fixChange(t)
	c.Files[0].Hunks = c.Files[0].Hunks[1:] // line 3 no longer shown
	c.Files[0].Reindex()
	s = New(c)
	s.Record(Finding{Rule: rules.RuleTLSVerifyOff, Source: "go-ast", Severity: "high", Path: "a.go", Line: 3, Message: "off"})
	if ev := s.Findings(); len(ev) != 1 || !ev[0].Fix.IsZero() || ev[0].Replacement != "" {
		t.Errorf("evidence %+v: a fix off the diff's lines must be dropped", ev)
	}
}
