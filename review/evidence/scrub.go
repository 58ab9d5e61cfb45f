package evidence

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

// pathScrubber rewrites the host's directories in text that is posted (notes, finding messages,
// error text of the go command, the type checker and external tools) to what they stand for in
// the tree: a tree's root becomes nothing, so "/tmp/debatebot-trees-1/head/api/user.go:19" reads
// "api/user.go:19". Both the path as given and the one symbolic links resolve to are rewritten.
type pathScrubber struct {
	pairs    [][2]string
	replacer *strings.Replacer
}

// add rewrites dir (absolute) to to: "" for a tree's root, or a tree-relative directory
// ("sub/mod") for the analysis copy of that module's go.mod.
func (p *pathScrubber) add(dir, to string) {
	if dir == "" || dir == string(filepath.Separator) {
		return
	}
	forms := []string{filepath.Clean(dir)}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != forms[0] {
		forms = append(forms, real)
	}
	for _, d := range forms {
		sep := d + string(filepath.Separator)
		if to == "" {
			p.pairs = append(p.pairs, [2]string{sep, ""}, [2]string{d, "."})
		} else {
			p.pairs = append(p.pairs, [2]string{sep, to + "/"}, [2]string{d, to})
		}
	}
	p.replacer = nil
}

// clean rewrites every directory added in s, the longest match first (a module's analysis copy
// is rewritten as the module's), and then what is left of the App's temporary directories.
func (p *pathScrubber) clean(s string) string {
	if p != nil && len(p.pairs) > 0 {
		s = p.replace(s)
	}
	return tempPaths().ReplaceAllString(s, "")
}

func (p *pathScrubber) replace(s string) string {
	if p.replacer == nil {
		pairs := append([][2]string(nil), p.pairs...)
		sort.SliceStable(pairs, func(i, j int) bool { return len(pairs[i][0]) > len(pairs[j][0]) })
		var args []string
		for _, kv := range pairs {
			args = append(args, kv[0], kv[1])
		}
		p.replacer = strings.NewReplacer(args...)
	}
	return p.replacer.Replace(s)
}
