package dashboard

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzSameOriginPath checks the sign-in's return path with any input: the result always parses
// to no scheme and no host, starts with a single slash followed by neither a slash nor a
// backslash, holds no control character, and reads the same once more (it is its own check's
// fixed point). Run it with
//
//	go test ./dashboard -run '^$' -fuzz FuzzSameOriginPath -fuzztime 2m -parallel=1
func FuzzSameOriginPath(f *testing.F) {
	for _, s := range []string{
		"/", "/debates/abc?x=1#y", "/\t/evil.example", "/%09/evil.example", "//evil", `/\evil`, `\/evil`,
		"/%2F/evil", "/%5Cevil", "https://evil", "javascript:alert(1)", "/\r\n/evil", " /x ", "/\u2215evil",
		"/a/..//evil", "/%2e%2e//evil", "/?next=//evil", "/#//evil", "/x?%zz", "/%zz", "/\x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, next string) {
		got := sameOriginPath(next)
		if !strings.HasPrefix(got, "/") || strings.HasPrefix(got, "//") || strings.HasPrefix(got, `/\`) {
			t.Fatalf("sameOriginPath(%q) = %q: not a single leading slash", next, got)
		}
		for _, r := range got {
			if r < 0x20 || r == 0x7f {
				t.Fatalf("sameOriginPath(%q) = %q holds a control character", next, got)
			}
		}
		u, err := url.Parse(got)
		if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
			t.Fatalf("sameOriginPath(%q) = %q parses to scheme %q host %q (%v)", next, got, u.Scheme, u.Host, err)
		}
		if dec := strings.ReplaceAll(u.Path, `\`, "/"); strings.HasPrefix(dec, "//") {
			t.Fatalf("sameOriginPath(%q) = %q decodes to %q", next, got, dec)
		}
		if again := sameOriginPath(got); again != got {
			t.Fatalf("sameOriginPath(%q) = %q, and %q once more", next, got, again)
		}
	})
}

func TestSameOriginPathKeepsPages(t *testing.T) {
	for in, want := range map[string]string{
		"/debates/abc?x=1#y": "/debates/abc?x=1#y",
		`/debates\abc`:       "/debates/abc",
		"/debates/a b":       "/debates/a%20b",
		"/%2F/evil":          "/",
		"/%5Cevil":           "/",
		"/\t/evil":           "/",
	} {
		if got := sameOriginPath(in); got != want {
			t.Errorf("sameOriginPath(%q) = %q, want %q", in, got, want)
		}
	}
}
