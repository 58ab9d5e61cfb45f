package dashboard

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// sameOriginPath returns next when a browser would read it as a path on this site, re-encoded,
// and "/" otherwise. It reads next as browsers do: leading and trailing spaces dropped,
// backslashes in the path taken for slashes, percent-encoded slashes and backslashes decoded.
// Anything that could name another host (//host, /\host, \/host, a scheme, a host, a control
// character or an invisible format character anywhere, even percent-encoded in the path) is
// refused, since browsers drop tabs and newlines and would read /<TAB>/host as //host.
func sameOriginPath(next string) string {
	p, ok := cleanPath(next)
	if !ok || !isSameOriginPath(p) {
		return "/"
	}
	return p
}

// cleanPath normalises next as a browser would and re-encodes it; ok is false when next is not
// a path of this site.
func cleanPath(next string) (string, bool) {
	s := strings.Trim(next, " ")
	if s == "" || !utf8.ValidString(s) || strings.IndexFunc(s, invisible) >= 0 {
		return "", false
	}
	// In the path (before ? or #), a browser reads a backslash as a slash.
	end := strings.IndexAny(s, "?#")
	if end < 0 {
		end = len(s)
	}
	s = strings.ReplaceAll(s[:end], `\`, "/") + s[end:]
	if !strings.HasPrefix(s, "/") || strings.HasPrefix(s, "//") {
		return "", false
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return "", false
	}
	// The path decoded: /%2F/host and /%5Chost are //host and /\host to anything that decodes
	// once more, and an encoded control character is no part of a page's path here.
	decoded := strings.ReplaceAll(u.Path, `\`, "/")
	if !strings.HasPrefix(decoded, "/") || strings.HasPrefix(decoded, "//") || strings.IndexFunc(decoded, invisible) >= 0 {
		return "", false
	}
	out := u.EscapedPath()
	if u.RawQuery != "" || u.ForceQuery {
		out += "?" + u.RawQuery
	}
	if u.Fragment != "" {
		out += "#" + u.EscapedFragment()
	}
	return out, true
}

// isSameOriginPath reports whether p, as a redirect's target, stays on this site: it parses to
// no scheme and no host, and starts with a single slash followed by neither a slash nor a
// backslash, and holds no control character.
func isSameOriginPath(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, `/\`) || strings.IndexFunc(p, invisible) >= 0 {
		return false
	}
	u, err := url.Parse(p)
	return err == nil && u.Scheme == "" && u.Host == "" && u.User == nil && u.Opaque == ""
}

// invisible reports the characters a browser drops or that hide what a URL says: control
// characters (ASCII's, DEL and C1's), format characters (zero-width, bidirectional), and
// spaces other than the ASCII one.
func invisible(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || (r != ' ' && unicode.IsSpace(r)) || r == utf8.RuneError
}
