// Package codectx builds the code a reviewer opens around a change, for the model-backed agents:
// for each changed hunk the enclosing function, method or class of the head tree, whole, and for
// a function the change modifies the definitions it calls and the callers that call it within
// the changed packages, ranked by evidence and closeness and trimmed to a token budget. Every
// line carries its head-tree number, and HeadIndex lets a claim cite any line that exists in the
// head tree.
package codectx

import (
	"context"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/debatebot/debatebot/review/change"
)

// Limits of the work: a file over MaxFileBytes is not parsed (its hunks stand alone), a file
// keeps at most MaxScopes definitions, and a file nested deeper than MaxDepth brackets is not
// handed to a parser that recurses.
const (
	MaxFileBytes = 1 << 20
	MaxScopes    = 100000
	MaxDepth     = 400
)

// Scope is one definition of the head tree: a function, method, class or type, with its lines.
type Scope struct {
	Path string
	// Name is the definition's simple name ("handle"); Label says what it is ("func (s *Server)
	// handle", "class Cart", "def total").
	Name, Label string
	// Function is false for a class or type (which has no callers of its own).
	Function   bool
	Start, End int
	// Calls are the simple names the definition calls; Refs the other names it uses (Go only:
	// a method passed as a handler, a type).
	Calls, Refs []string
}

func (s *Scope) contains(line int) bool { return s.Start <= line && line <= s.End }

func (s *Scope) size() int { return s.End - s.Start + 1 }

// parsed is one file's definitions, or why it has none.
type parsed struct {
	scopes []Scope
	err    string
}

// scopesOf parses the head file src of path p by its language. Python is parsed separately, in
// one python3 process for every file (see pythonScopes).
func scopesOf(ctx context.Context, p string, src []byte) parsed {
	if len(src) > MaxFileBytes {
		return parsed{err: "larger than 1 MiB, not parsed"}
	}
	var (
		out []Scope
		err error
	)
	switch change.LanguageOf(p) {
	case "go":
		out, err = goScopes(p, src)
	case "javascript", "typescript":
		out, err = jsScopes(p, src)
	default:
		return parsed{err: "no parser for this language"}
	}
	if err != nil {
		return parsed{err: err.Error()}
	}
	return parsed{scopes: capScopes(out)}
}

func capScopes(s []Scope) []Scope {
	sort.SliceStable(s, func(i, j int) bool { return s[i].Start < s[j].Start })
	if len(s) > MaxScopes {
		s = s[:MaxScopes]
	}
	return s
}

// innermost is the smallest definition of scopes holding line, a function before a class or
// type that holds it; nil when the line is at top level.
func innermost(scopes []Scope, line int) *Scope {
	var best *Scope
	for i := range scopes {
		s := &scopes[i]
		if !s.contains(line) {
			continue
		}
		switch {
		case best == nil,
			s.Function && !best.Function,
			s.Function == best.Function && s.size() < best.size():
			best = s
		}
	}
	return best
}

// callPattern finds a call by name: a name followed by an opening parenthesis.
var callPattern = regexp.MustCompile(`([A-Za-z_$][A-Za-z0-9_$]*)\s*\(`)

// notCalls are keywords of Python, JavaScript and TypeScript that a parenthesis follows.
var notCalls = map[string]bool{
	"if": true, "for": true, "while": true, "switch": true, "catch": true, "return": true,
	"function": true, "typeof": true, "await": true, "elif": true, "and": true, "or": true,
	"not": true, "in": true, "def": true, "class": true, "with": true,
	"except": true, "lambda": true, "yield": true, "super": true, "new": true, "import": true,
	"assert": true, "del": true, "is": true, "async": true, "constructor": true,
}

// callsIn lists the names called in lines (deduplicated, in order), skipping the definition's
// own line's name.
func callsIn(lines []string, self string) []string {
	seen := map[string]bool{self: true}
	var out []string
	for _, l := range lines {
		if len(l) > 4096 {
			l = l[:4096]
		}
		for _, m := range callPattern.FindAllStringSubmatch(l, -1) {
			n := m[1]
			if notCalls[n] || seen[n] {
				continue
			}
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// splitLines splits src into its lines (without the newline).
func splitLines(src []byte) []string {
	s := strings.TrimSuffix(string(src), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// dirOf is the directory of path p ("." at the root).
func dirOf(p string) string { return path.Dir(p) }
