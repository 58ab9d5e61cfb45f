package scan

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// tempPaths matches what is left of the App's own temporary directories once the known ones are
// rewritten (one a tool or the extraction of a tree named in its error, a path cut short): the
// directory and, for trees, its "base" or "head" go, the path in the tree stays.
var tempPaths = sync.OnceValue(func() *regexp.Regexp {
	tmp := filepath.Clean(os.TempDir())
	return regexp.MustCompile(regexp.QuoteMeta(tmp) + `/+debatebot-[\w.-]*(?:/+(?:base|head)\b)?/*`)
})

// PathScrubber rewrites the host's directories in text that is posted (notes, finding messages,
// error text of the go command, the type checker and external tools) to what they stand for in
// the tree: a tree's root becomes nothing, so "/tmp/debatebot-trees-1/head/api/user.go:19" reads
// "api/user.go:19". Both the path as given and the one symbolic links resolve to are rewritten.
type PathScrubber struct {
	pairs  [][2]string
	sorted bool
}

// Add rewrites dir (absolute) to to: "" for a tree's root, or a tree-relative directory
// ("sub/mod") for the analysis copy of that module's go.mod.
func (p *PathScrubber) Add(dir, to string) {
	if dir == "" || dir == string(filepath.Separator) {
		return
	}
	forms := []string{filepath.Clean(dir)}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != forms[0] {
		forms = append(forms, real)
	}
	for _, d := range forms {
		p.pairs = append(p.pairs, [2]string{d, to})
	}
	p.sorted = false
}

// Clean rewrites every directory added in s, the longest first (a module's analysis copy is
// rewritten as the module's), where it is a whole path or a path's beginning, and then what is
// left of the App's temporary directories.
func (p *PathScrubber) Clean(s string) string {
	if p != nil && len(p.pairs) > 0 {
		s = p.replace(s)
	}
	return tempPaths().ReplaceAllString(s, "")
}

func (p *PathScrubber) replace(s string) string {
	if !p.sorted {
		sort.SliceStable(p.pairs, func(i, j int) bool { return len(p.pairs[i][0]) > len(p.pairs[j][0]) })
		p.sorted = true
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		n, to := p.match(s, i)
		if n == 0 {
			b.WriteByte(s[i])
			i++
			continue
		}
		i += n
		switch {
		case i < len(s) && s[i] == filepath.Separator:
			i++ // "<root>/api" is "api", "<copy>/go.mod" is "sub/go.mod"
			if to != "" {
				b.WriteString(to + "/")
			}
		case to == "":
			b.WriteString(".")
		default:
			b.WriteString(to)
		}
	}
	return b.String()
}

// match returns the length of the directory added that s has at i, as a whole path element
// (not "/a/bc" for "/a/b"), and what it stands for.
func (p *PathScrubber) match(s string, i int) (int, string) {
	if i > 0 && pathByte(s[i-1]) {
		return 0, ""
	}
	for _, kv := range p.pairs {
		d := kv[0]
		if !strings.HasPrefix(s[i:], d) {
			continue
		}
		if end := i + len(d); end < len(s) && s[end] != filepath.Separator && pathByte(s[end]) {
			continue
		}
		return len(d), kv[1]
	}
	return 0, ""
}

// pathByte reports whether c can be part of a path element or separator.
func pathByte(c byte) bool {
	return c == '/' || c == '.' || c == '-' || c == '_' || c == '~' || c == '+' || c == '@' ||
		'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80
}
