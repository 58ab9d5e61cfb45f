package scan

import (
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change"
)

func fileChange(content string) *change.Change {
	f := &change.File{Path: "a.go", Status: change.StatusAdded, Content: []byte(content), HasContent: true}
	return &change.Change{Files: []*change.File{f}}
}

// A fingerprint survives the code moving down (lines added above it, indentation changed), and
// changes when the cited line, a neighbour, the rule or the file changes.
func TestFingerprintFollowsTheCode(t *testing.T) {
	body := "func F(db *sql.DB, c string) {\n\tq := \"SELECT * FROM t WHERE c = '\" + c + \"'\"\n\tdb.Query(q)\n\treturn\n}\n"
	at := func(content string, line int, rule string) string {
		return Fingerprint(fileChange(content), Finding{Rule: rule, Path: "a.go", Line: line, Message: "m"})
	}
	base := at("package a\n\n"+body, 4, "sql-injection")
	if !strings.HasPrefix(base, "fp1-") || len(base) != 28 {
		t.Fatalf("fingerprint %q", base)
	}
	if moved := at("package a\n// A comment.\n// Another.\n\n"+body, 6, "sql-injection"); moved != base {
		t.Errorf("moved two lines down: %s, want %s", moved, base)
	}
	if reindented := at("package a\n\n"+strings.ReplaceAll(body, "\t", "    "), 4, "sql-injection"); reindented != base {
		t.Errorf("reindented: %s, want %s", reindented, base)
	}
	for name, fp := range map[string]string{
		"cited line changed": at("package a\n\n"+strings.Replace(body, "db.Query(q)", "db.Query(q, c)", 1), 4, "sql-injection"),
		"neighbour changed":  at("package a\n\n"+strings.Replace(body, "return", "return // done", 1), 4, "sql-injection"),
		"another rule":       at("package a\n\n"+body, 4, "ignored-error"),
		"another line":       at("package a\n\n"+body, 3, "sql-injection"),
	} {
		if fp == base {
			t.Errorf("%s: the fingerprint did not change", name)
		}
	}
	// Without the file's text, the snippet, then the message (numbers normalised) stand in.
	e := Finding{Rule: "r", Path: "gone.go", Line: 3, Message: "found at line 3"}
	if Fingerprint(nil, e) != Fingerprint(nil, Finding{Rule: "r", Path: "gone.go", Line: 9, Message: "found at line 9"}) {
		t.Error("a message fingerprint depends on the line number in the message")
	}
	e.Snippet = "x := 1"
	if Fingerprint(nil, e) == Fingerprint(nil, Finding{Rule: "r", Path: "gone.go", Line: 3, Message: "found at line 3", Snippet: "x := 2"}) {
		t.Error("two snippets, one fingerprint")
	}
}

// Dismissed findings are dropped and the rest keep their order; a finding without a fingerprint
// is never dropped.
func TestDropDismissed(t *testing.T) {
	found := []Finding{{Message: "1", Fingerprint: "fp1-a"}, {Message: "2", Fingerprint: "fp1-b"}, {Message: "3"}, {Message: "4", Fingerprint: "fp1-c"}}
	kept, n := DropDismissed(found, func(fp string) bool { return fp == "fp1-b" || fp == "" })
	if n != 1 || len(kept) != 3 || kept[0].Message != "1" || kept[1].Message != "3" || kept[1].Fingerprint != "" || kept[2].Fingerprint != "fp1-c" {
		t.Errorf("kept %+v (%d dropped)", kept, n)
	}
	if found[1].Fingerprint != "fp1-b" || found[2].Message != "3" {
		t.Error("the input was changed")
	}
	if kept, n := DropDismissed(found, nil); n != 0 || len(kept) != 4 {
		t.Errorf("no dismissals: %d dropped", n)
	}
}
