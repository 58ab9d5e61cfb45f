package scan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/debatebot/debatebot/review/change"
)

// FingerprintContext is how many lines above and below the cited line a fingerprint reads.
const FingerprintContext = 2

// fingerprintVersion prefixes every fingerprint, so that a later way of computing them cannot be
// mistaken for this one.
const fingerprintVersion = "fp1-"

// Fingerprint identifies a finding on its code, for dismissals: a hash of the rule, the file and
// the cited line with FingerprintContext lines either side, each with its whitespace collapsed.
// It survives the code moving to other lines (lines added above it), and changes when the code
// itself or its neighbours change, so that a dismissal never hides a finding on code nobody
// looked at. A finding without a line of known text is fingerprinted by its message, with
// positions and numbers normalised.
func Fingerprint(c *change.Change, e Finding) string {
	text := ""
	if c != nil && e.Path != "" && e.Line > 0 {
		if f := c.File(e.Path); f != nil {
			text = window(f, e.Line)
		}
	}
	if text == "" && e.Snippet != "" {
		text = "line:" + collapse(e.Snippet)
	}
	if text == "" {
		text = "message:" + normalise(e.Message)
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%s", e.Rule, e.Path, text)))
	return fingerprintVersion + hex.EncodeToString(sum[:12])
}

// window is the cited line of f and its neighbours, normalised, or "" when the cited line's
// text is unknown.
func window(f *change.File, line int) string {
	if _, ok := f.Line(line); !ok {
		return ""
	}
	var b strings.Builder
	for n := line - FingerprintContext; n <= line+FingerprintContext; n++ {
		l, ok := f.Line(n)
		if !ok {
			l = "\x01" // before the file's start, past its end, or outside what is known
		}
		b.WriteString(collapse(l))
		b.WriteByte('\n')
	}
	return b.String()
}

// collapse trims a line and collapses its runs of whitespace into one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// DropDismissed removes the findings whose fingerprint dismissed reports, keeping the order of
// the rest, and returns how many were removed. found is not modified.
func DropDismissed(found []Finding, dismissed func(fingerprint string) bool) ([]Finding, int) {
	if dismissed == nil {
		return found, 0
	}
	kept := found[:0:0]
	for _, f := range found {
		if f.Fingerprint != "" && dismissed(f.Fingerprint) {
			continue
		}
		kept = append(kept, f)
	}
	if len(kept) == len(found) {
		return found, 0
	}
	return kept, len(found) - len(kept)
}
