package codectx

import (
	"context"
	"sort"

	"github.com/debatebot/debatebot/review/change"
)

// graph is the head tree's definitions in the changed packages: every file's definitions and
// lines, and each package's definitions and callers by name.
type graph struct {
	files map[string]parsed
	lines map[string][]string
	pkgs  map[string]*pkg
	notes []string
}

// pkg is one package: a directory's files of one language family.
type pkg struct {
	defs           map[string][]*Scope
	callers, users map[string][]*Scope
}

// family groups languages whose files call each other (JavaScript and TypeScript).
func family(p string) string {
	switch l := change.LanguageOf(p); l {
	case "typescript":
		return "javascript"
	default:
		return l
	}
}

func parsable(p string) bool {
	switch family(p) {
	case "go", "python", "javascript":
		return true
	}
	return false
}

func (g *graph) pkgOf(p string) *pkg { return g.pkgs[family(p)+"\x00"+dirOf(p)] }

// sources are the head files to read: the changed source files with content, and the files
// beside them (c.Beside) of the same directory and language family.
func sources(c *change.Change) map[string][]byte {
	src := map[string][]byte{}
	pkgs := map[string]bool{}
	for _, f := range c.Files {
		if f.Status == change.StatusDeleted || !f.HasContent || f.Binary || f.IsGenerated() || !parsable(f.Path) {
			continue
		}
		src[f.Path] = f.Content
		pkgs[family(f.Path)+"\x00"+dirOf(f.Path)] = true
	}
	for p, data := range c.Beside {
		if _, ok := src[p]; !ok && pkgs[family(p)+"\x00"+dirOf(p)] {
			src[p] = data
		}
	}
	return src
}

// readGraph parses the head files of the changed packages (Python's in one python3 process).
func readGraph(ctx context.Context, c *change.Change) *graph {
	src := sources(c)
	g := &graph{files: map[string]parsed{}, lines: map[string][]string{}, pkgs: map[string]*pkg{}}
	paths := make([]string, 0, len(src))
	for p := range src {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var py []string
	for _, p := range paths {
		if ctx.Err() != nil {
			break
		}
		if family(p) == "python" {
			py = append(py, p)
			continue
		}
		g.files[p] = scopesOf(ctx, p, src[p])
	}
	for p, r := range pythonScopes(ctx, py, src) {
		g.files[p] = r
	}
	for _, p := range paths {
		r, ok := g.files[p]
		if !ok || r.err != "" {
			continue
		}
		g.lines[p] = splitLines(src[p])
		key := family(p) + "\x00" + dirOf(p)
		k := g.pkgs[key]
		if k == nil {
			k = &pkg{defs: map[string][]*Scope{}, callers: map[string][]*Scope{}, users: map[string][]*Scope{}}
			g.pkgs[key] = k
		}
		for i := range r.scopes {
			s := &r.scopes[i]
			if s.Name != "" { // a callback has no name to be called by
				k.defs[s.Name] = append(k.defs[s.Name], s)
			}
			for _, call := range s.Calls {
				k.callers[call] = append(k.callers[call], s)
			}
			for _, ref := range s.Refs {
				k.users[ref] = append(k.users[ref], s)
			}
		}
	}
	return g
}
