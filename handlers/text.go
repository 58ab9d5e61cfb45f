package handlers

import (
	"strings"
	"unicode/utf8"
)

// truncate cuts s to at most n bytes and marks the cut with "...". A cut inside a UTF-8
// character cuts before it instead, so that untrusted text (CI output, alert messages) stays
// valid UTF-8 when it was; bytes that are no UTF-8 are cut as they are.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for i := n; i >= 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if _, size := utf8.DecodeRuneInString(s[i:]); i+size > n {
				cut = i
			}
			break
		}
	}
	return s[:cut] + "..."
}

// truncateUTF8 keeps at most n bytes of s without splitting a character.
func truncateUTF8(s string, n int) string {
	for len(s) > n {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}

// inlineCode quotes text as Markdown code (no mention, link or HTML in it), clipped.
func inlineCode(s string, limit int) string {
	s = strings.ReplaceAll(truncateUTF8(strings.Join(strings.Fields(s), " "), limit), "`", "'")
	if s == "" {
		return "`-`"
	}
	return "`" + s + "`"
}
