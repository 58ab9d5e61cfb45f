package render

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/debatebot/debatebot/toulmin"
)

// FingerprintMarker is the hidden marker that identifies a finding in the review comment about
// it, so that a reply to the comment ("false positive", "/debate dismiss", a question) finds the
// finding again: "<!-- debatebot:fingerprint FINGERPRINT rule=RULE -->". A comment about several
// findings carries one marker for each. It is "" for evidence without a fingerprint (a required
// change that no finding carries, or evidence gathered before fingerprints existed).
func FingerprintMarker(e toulmin.Evidence) string {
	if !fingerprintRe.MatchString(e.Fingerprint) {
		return ""
	}
	rule := e.Rule
	if !ruleRe.MatchString(rule) {
		rule = ""
	}
	return fmt.Sprintf("<!-- debatebot:fingerprint %s rule=%s -->", e.Fingerprint, rule)
}

// MarkedFinding is what a fingerprint marker says of its finding.
type MarkedFinding struct {
	Fingerprint, Rule string
}

var (
	fingerprintRe = regexp.MustCompile(`^fp1-[0-9a-f]{24}$`)
	ruleRe        = regexp.MustCompile(`^[A-Za-z0-9._/-]{1,100}$`)
	markerRe      = regexp.MustCompile(`<!-- debatebot:fingerprint (fp1-[0-9a-f]{24}) rule=([A-Za-z0-9._/-]{0,100}) -->`)
)

// FingerprintMarkers reads the fingerprint markers of a comment the bot wrote, in order, each
// fingerprint once.
func FingerprintMarkers(body string) []MarkedFinding {
	var out []MarkedFinding
	seen := map[string]bool{}
	for _, m := range markerRe.FindAllStringSubmatch(body, -1) {
		if seen[m[1]] {
			continue
		}
		seen[m[1]] = true
		out = append(out, MarkedFinding{Fingerprint: m[1], Rule: strings.TrimSpace(m[2])})
	}
	return out
}

// DismissedMarker marks the bot's answer that a maintainer dismissed the finding of a thread: the
// publisher does not answer such a thread "resolved" when later debates no longer raise it.
const DismissedMarker = "<!-- debatebot:dismissed -->"
