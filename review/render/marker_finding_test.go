package render

import (
	"strings"
	"testing"

	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// A finding's review comment carries its fingerprint and rule in a hidden marker that reads
// back; a marker a commenter forged with other text inside is not read.
func TestFingerprintMarkerReadsBack(t *testing.T) {
	e := toulmin.Evidence{Rule: "sql-injection", Severity: voting.SeverityHigh, Path: "a.go", Line: 3, Message: "query built from input", Fingerprint: "fp1-0123456789abcdef01234567"}
	body := InlineFinding{Key: "k:1", Evidence: e}.CommentBody()
	if !strings.Contains(body, "<!-- debatebot:fingerprint fp1-0123456789abcdef01234567 rule=sql-injection -->") {
		t.Fatalf("comment lacks the marker:\n%s", body)
	}
	other := e
	other.Rule, other.Fingerprint = "ignored-error", "fp1-ffffffffffffffffffffffff"
	got := FingerprintMarkers(body + "\n" + FingerprintMarker(other) + FingerprintMarker(e) + "<!-- debatebot:fingerprint fp1-0123 rule=x -->")
	if len(got) != 2 || got[0] != (MarkedFinding{"fp1-0123456789abcdef01234567", "sql-injection"}) || got[1].Rule != "ignored-error" {
		t.Errorf("markers = %+v", got)
	}
	if FingerprintMarker(toulmin.Evidence{Rule: "r", Fingerprint: "not-one"}) != "" {
		t.Error("a marker for a malformed fingerprint")
	}
	if m := FingerprintMarker(toulmin.Evidence{Rule: "a rule -->", Fingerprint: e.Fingerprint}); strings.Count(m, "-->") != 1 {
		t.Errorf("a rule closed the marker early: %s", m)
	}
}
