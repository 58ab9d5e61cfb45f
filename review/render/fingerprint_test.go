package render

import (
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/toulmin"
)

// newFileChange is a change that adds one file with its content, as a diff of the new file reads.
func newFileChange(path, content string) *change.Change {
	f := &change.File{Path: path, Status: change.StatusAdded, Content: []byte(content), HasContent: true}
	return &change.Change{Source: "test.diff", Files: []*change.File{f}}
}

func TestFingerprintsOfGoFunctions(t *testing.T) {
	// The same line in two functions is two findings with two fingerprints; the same line twice
	// in one function is told apart by its order.
	c := newFileChange("a.go", "package a\n\nfunc One() {\n\tx()\n\tx()\n}\n\nfunc (s *S[T]) Two() {\n\tx()\n}\n")
	fp := newFingerprinter(c)
	e := func(line int) string {
		return fp.fingerprint(toulmin.Evidence{Rule: rules.RuleIgnoredError, Path: "a.go", Line: line, Message: "m"})
	}
	one1, one2, two := e(4), e(5), e(9)
	if one1[:32] != one2[:32] || one1 == one2 || !strings.HasSuffix(one2, ":2") {
		t.Errorf("the same line twice in One: %s and %s, want one hash with :1 and :2", one1, one2)
	}
	if two[:32] == one1[:32] {
		t.Errorf("the same line in One and S.Two has one fingerprint %s", two)
	}
	if got := fp.function(c.File("a.go"), 9); got != "S.Two" {
		t.Errorf("function around line 9 = %q, want S.Two", got)
	}
}
