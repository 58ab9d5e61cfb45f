package compare

import (
	"strings"
	"unicode"
)

// This file holds the language-independent form in which the comparison of base and head (see
// removed.go) sees a function: its statements in source order, each with its condition, the
// calls it makes, the names it reads and assigns, and the literals and configuration fields it
// holds. Each language's front end (removed_golang.go with go/parser, removed_javascript.go with goja's
// parser, removed_python.go with Python's own ast module) fills it from a real parse, so that the
// comparison is written once for every language.

// irFile is one source file of one tree.
type irFile struct {
	Path string `json:"path"`
	// Imports maps a local name to the module it names ("filepath" → "path/filepath", "pth" →
	// "path", "osp" → "os.path").
	Imports map[string]string `json:"imports"`
	Funcs   []*irFunc         `json:"funcs"`
	// Regexps are the patterns compiled outside functions (Python's module and class
	// constants), each with the name it is bound to.
	Regexps []irRegexp `json:"regexps,omitempty"`
	// Err says why the file could not be parsed (a syntax error).
	Err string `json:"error,omitempty"`
	// Skip says why the file was not compared though it may be valid: it is beyond a limit of
	// the parser (nested too deeply, too slow, too much memory).
	Skip string `json:"skip,omitempty"`
}

// irRegexp is a pattern compiled outside any function: Name is what it is bound to ("" when
// nothing), Line the line of the call that compiles it.
type irRegexp struct {
	Name    string `json:"name"`
	Line    int    `json:"line"`
	Pattern string `json:"pattern"`
}

// irFunc is one function or method. Function literals (callbacks, closures) belong to the
// function that holds them; their statements are nodes of it with Callback set.
type irFunc struct {
	// Name is qualified by what encloses it: "Zip.extractNext", "LoginHandler._redirect_safe",
	// "res.location", "module.exports.extractAllTo".
	Name   string   `json:"name"`
	Line   int      `json:"line"`
	End    int      `json:"end"`
	Async  bool     `json:"async"`
	Params []string `json:"params"`
	// Recv is a Go method's receiver name; Python's self and JavaScript's this are implicit.
	Recv  string    `json:"recv,omitempty"`
	Nodes []*irNode `json:"nodes"`
	// file is the file the function is in (set after parsing).
	file *irFile
}

// Node kinds.
const (
	kindIf     = "if"     // if, elif, else if, a switch case
	kindLoop   = "loop"   // for, while, range
	kindReturn = "return" // return
	kindRaise  = "raise"  // raise, throw, panic
	kindExit   = "exit"   // continue, break
	kindExpr   = "expr"   // a call or other expression statement
	kindAssign = "assign" // an assignment or declaration
	kindTry    = "try"    // try (its branches: try, catch, finally)
	kindWith   = "with"   // Python's with
	kindDefer  = "defer"  // Go's defer
	kindAssert = "assert" // Python's assert
	kindGo     = "go"     // Go's go statement
	kindOther  = "other"
)

// irNode is one statement. Compound statements hold their condition or header; the statements
// of their bodies are the nodes whose Parent is theirs.
type irNode struct {
	Kind string `json:"kind"`
	Line int    `json:"line"`
	// End is the last line of the whole statement, HeadEnd the last line of its header (the
	// condition of an if, the whole of a simple statement).
	End     int `json:"end"`
	HeadEnd int `json:"head_end"`
	// Parent is the index in the function's Nodes of the statement whose body holds this one,
	// -1 at the function's top level; Branch says which body ("then", "else", "body", "try",
	// "catch", "finally", "callback").
	Parent int    `json:"parent"`
	Branch string `json:"branch"`
	// Text is the header in a normalised form (the parser's own printing where it has one).
	Text string  `json:"text"`
	Cond *irCond `json:"cond,omitempty"`
	// Exits: the then-branch of an if ends by leaving (return, raise, throw, continue, panic)
	// and is short: the if is a guard.
	Exits   bool `json:"exits"`
	HasElse bool `json:"has_else"`
	// Rejects: an if whose then-branch raises, throws, panics, or returns an error or a refusal
	// (false, None, null, an error value).
	Rejects bool `json:"rejects"`
	// ElseExits: Exits and Rejects tell of the else-branch, the then-branch going on (if (ok)
	// {...} else {throw ...}): the if is a guard whose condition says what is allowed.
	ElseExits bool     `json:"else_exits,omitempty"`
	Calls     []irCall `json:"calls"`
	// Defs are the names the statement assigns (dotted: "req.subDir", with its root "req"),
	// Uses the names it reads.
	Defs   []string  `json:"defs"`
	Uses   []string  `json:"uses"`
	Strs   []string  `json:"strs"`
	Fields []irField `json:"fields"`
	// Regexps are the regular expressions the statement compiles or matches with (a
	// JavaScript literal or RegExp(...), a Python re call's pattern).
	Regexps []string `json:"regexps"`
	// Callback: the statement is in a function literal passed as an argument, stored as a value
	// or started as a goroutine: nothing up the stack catches what it throws.
	Callback bool `json:"callback"`
}

// irCall is one call in a statement's header.
type irCall struct {
	// Callee is the called expression as written ("filepath.Clean", "self.redirect").
	Callee string `json:"callee"`
	Line   int    `json:"line"`
	// Args are the arguments' texts; a keyword argument is "name=value".
	Args []string `json:"args"`
	Text string   `json:"text"`
	// Outer is the index (in the node's Calls) of the call this one is an argument of, -1.
	Outer int `json:"outer"`
}

// irCond is a condition split at its top-level boolean operator.
type irCond struct {
	Op    string   `json:"op"` // "and", "or", or "" for a single term
	Terms []string `json:"terms"`
	Text  string   `json:"text"`
}

// irField is one field a literal sets: a key of a Go composite literal or a JavaScript object
// literal, or a keyword argument of a Python call.
type irField struct {
	// Type is the literal's type or the callee it configures ("http.Client").
	Type  string `json:"type"`
	Key   string `json:"key"`
	Value string `json:"value"`
	Line  int    `json:"line"`
	// Rejects: the value is a function that refuses (returns an error, raises, throws).
	Rejects bool `json:"rejects"`
}

// name returns the last segment of a callee ("filepath.Clean" → "Clean").
func (c irCall) name() string { return lastSegment(c.Callee) }

func lastSegment(s string) string {
	s = strings.TrimSuffix(s, "?.")
	if i := strings.LastIndexAny(s, ".)]"); i >= 0 {
		return s[i+1:]
	}
	return s
}

// qualifier returns what precedes the last segment of a callee ("os.path.join" → "os.path").
func qualifier(s string) string {
	if i := strings.LastIndexByte(s, '.'); i > 0 {
		return strings.TrimSuffix(s[:i], "?")
	}
	return ""
}

// rootName returns the first identifier of a dotted name ("req.subDir" → "req").
func dottedRoot(s string) string {
	for i, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '$') {
			return s[:i]
		}
	}
	return s
}

// lexeme is one lexical token of a normalised text: an identifier, a number, a quoted literal
// (with its quotes) or a punctuation run.
type lexeme string

// tokens splits a normalised expression into its tokens. The texts come from the parsers'
// printers or are source slices with whitespace collapsed, so a plain scan suffices to compare
// them; it never has to find structure.
func tokens(s string) []lexeme {
	var out []lexeme
	rs := []rune(s)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			i++
		case unicode.IsLetter(r) || r == '_' || r == '$':
			j := i + 1
			for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) || rs[j] == '_' || rs[j] == '$') {
				j++
			}
			out = append(out, lexeme(rs[i:j]))
			i = j
		case unicode.IsDigit(r):
			j := i + 1
			for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) || rs[j] == '.' || rs[j] == '_') {
				j++
			}
			out = append(out, lexeme(rs[i:j]))
			i = j
		case r == '"' || r == '\'' || r == '`':
			j := i + 1
			for j < len(rs) && rs[j] != r {
				if rs[j] == '\\' {
					j++
				}
				j++
			}
			if j < len(rs) {
				j++
			}
			if j > len(rs) {
				j = len(rs)
			}
			// Python prints '//' where Go and JavaScript write "//": quotes are not part of
			// what a literal says.
			out = append(out, lexeme(`"`+strings.Trim(string(rs[i:j]), string(r))+`"`))
			i = j
		default:
			j := i + 1
			for j < len(rs) && strings.ContainsRune("=!<>&|+-*/%^~", rs[j]) && strings.ContainsRune("=!<>&|+-*/%^~", r) {
				j++
			}
			out = append(out, lexeme(rs[i:j]))
			i = j
		}
	}
	return out
}

// noise are tokens that say nothing about what a condition tests.
var noise = map[string]bool{
	"self": true, "this": true, "not": true, "and": true, "or": true, "is": true, "in": true,
	"nil": true, "None": true, "null": true, "undefined": true, "true": true, "false": true,
	"True": true, "False": true, "len": true, "typeof": true, "instanceof": true, "new": true,
	"await": true, "err": true,
}

// words returns the set of identifiers and literals of a text, without noise.
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, t := range tokens(s) {
		c := rune(t[0])
		if (unicode.IsLetter(c) || c == '_' || c == '$' || c == '"' || unicode.IsDigit(c)) && !noise[string(t)] {
			out[string(t)] = true
		}
	}
	return out
}

// similarity is the Jaccard index of two word sets.
func similarity(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// nameWords splits an identifier into lower-case words: "CheckPath" → check, path;
// "safe_join" → safe, join; "isPrivateIPRange" → is, private, ip, range.
func nameWords(name string) []string {
	var out []string
	var cur []rune
	rs := []rune(name)
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == '.' || r == '$':
			flush()
		case unicode.IsUpper(r):
			// A new word starts at an upper-case letter that follows a lower-case one, or
			// that precedes one after an upper-case run ("IPRange" → ip, range).
			if i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1])) {
				flush()
			}
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

// collapse folds runs of white space into one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// ancestors returns the indexes of the nodes that enclose node i, innermost first.
func (f *irFunc) ancestors(i int) []int {
	var out []int
	for p := f.Nodes[i].Parent; p >= 0; p = f.Nodes[p].Parent {
		out = append(out, p)
	}
	return out
}

// argParams returns the parameters a call's arguments bind, in order: a Python method's self
// (or cls) is bound by the receiver, not by an argument.
func (f *irFunc) argParams(call irCall) []string {
	ps := f.Params
	if len(ps) == len(call.Args)+1 && (ps[0] == "self" || ps[0] == "cls") && qualifier(call.Callee) != "" {
		ps = ps[1:]
	}
	return ps
}

// children returns the nodes directly in node p's bodies.
func (f *irFunc) children(p int) []int {
	var out []int
	for i, n := range f.Nodes {
		if n.Parent == p {
			out = append(out, i)
		}
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
