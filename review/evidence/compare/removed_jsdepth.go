package compare

import "fmt"

// Limits of the JavaScript front end, checked by jsDepth before the parser sees a file: goja's
// parser and the walk over its tree recurse once per level of nesting, on the goroutine's stack,
// and a stack overflow ends the whole process (no recover catches it). A file beyond a limit is
// not compared, and named.
const (
	// jsMaxNesting bounds the brackets, braces, parentheses and template substitutions open
	// at once.
	jsMaxNesting = 1000
	// jsMaxChain bounds the depth of nesting counted in tokens: the tokens of the expression
	// or statement chain under way at each open bracket, added up (a+a+…, !!!…, a=>a=>…,
	// if (a) if (b) …, else if chains, x.y().z()…).
	jsMaxChain = 4000
	// jsMaxLabels bounds the statement labels of a file (goja compares each label with every
	// label around it).
	jsMaxLabels = 200
)

// jsFrame is one open bracket: its kind ('(', '[', '{' or '$' for a template substitution)
// and the chain depth outside it.
type jsFrame struct {
	kind      byte
	run, base int
	// head is set on the parentheses of a statement's head (if, while, for, with): a newline
	// after them does not end the statement.
	head bool
	// try is set on the braces of a try block, which a fragment cut inside must end
	// with a handler.
	try bool
	// block is the index of the brace's entry in jsScan.blocks, -1 when none is kept; word is
	// the token before a parenthesis (a function's name, if, catch).
	block int
	word  string
}

// jsScan is jsDepth's state: a linear pass over the tokens that knows strings, template
// literals, comments and regular expression literals.
type jsScan struct {
	src    []byte
	i      int
	stack  []jsFrame
	run    int // tokens of the chain under way at this level
	base   int // chain depth of the levels outside
	reset  bool
	nl     bool // a newline since the last token
	prev   string
	prev2  string
	labels int
	// noRegex is the end of the line on which a regular expression literal last failed to
	// end: a / before it is taken for a division, so that no byte is scanned twice for one.
	noRegex int
	// unmatched are the closing brackets met with none open, in order (a fragment of a file
	// starts inside what it closes).
	unmatched []byte
	// blocks, when not nil, receives every brace block (see jsBlocks); lastParen is the last
	// parenthesised group that ended, for telling a function's body from a statement's.
	blocks    *[]jsBlock
	lastParen struct {
		end  int
		word string
	}
}

// jsDepth checks src against the limits and says which one it exceeds ("" when none). It reads
// each byte once and allocates only for the open brackets, so it is safe on any input.
func jsDepth(src []byte) string {
	s := &jsScan{src: src, prev: ";"}
	for s.i < len(src) {
		if why := s.step(); why != "" {
			return why
		}
	}
	return ""
}

func (s *jsScan) step() string {
	c := s.src[s.i]
	switch {
	case c == '\n' || c == '\r' || c == 0xe2 && s.lineSep():
		s.nl = true
		s.i++
		return ""
	case c == ' ' || c == '\t' || c == '\v' || c == '\f' || c >= 0x80 && !jsWordByte(c):
		s.i++
		return ""
	case c == '/' && s.at(1) == '/':
		for s.i < len(s.src) && s.src[s.i] != '\n' && s.src[s.i] != '\r' {
			s.i++
		}
		return ""
	case c == '/' && s.at(1) == '*':
		s.blockComment()
		return ""
	}
	return s.token(c)
}

func (s *jsScan) at(k int) byte {
	if s.i+k < len(s.src) {
		return s.src[s.i+k]
	}
	return 0
}

// lineSep reports U+2028 and U+2029, which end a line in JavaScript.
func (s *jsScan) lineSep() bool {
	return s.at(1) == 0x80 && (s.at(2) == 0xa8 || s.at(2) == 0xa9)
}

func (s *jsScan) blockComment() {
	s.i += 2
	for s.i < len(s.src) && !(s.src[s.i] == '*' && s.at(1) == '/') {
		if s.src[s.i] == '\n' || s.src[s.i] == '\r' {
			s.nl = true
		}
		s.i++
	}
	s.i += 2
}

// token reads one token starting with c and counts it.
func (s *jsScan) token(c byte) string {
	start := s.i
	switch {
	case jsWordByte(c):
		for s.i < len(s.src) && jsWordByte(s.src[s.i]) {
			s.i++
		}
		return s.count(string(s.src[start:s.i]))
	case c == '"' || c == '\'':
		s.quoted(c)
		return s.count("lit")
	case c == '`':
		s.i++
		return s.template()
	case c == '/' && s.regexAllowed() && s.regex():
		return s.count("lit")
	case c == '(' || c == '[' || c == '{':
		s.i++
		return s.open(c)
	case c == ')' || c == ']' || c == '}':
		s.i++
		return s.close()
	}
	s.i++
	return s.count(string(c))
}

// count adds a token to the chain under way, after a pending reset (a statement's end), unless
// the token continues the statement that ended (else).
func (s *jsScan) count(tok string) string {
	if s.nl && jsEndsExpr(s.prev) && !jsContinues(tok) {
		s.reset = true // a newline after a complete expression may end the statement
	}
	if s.prev == "}" && jsStatementWord(tok) {
		s.reset = true
	}
	if s.reset && tok != "else" {
		s.run = 0
	}
	s.reset, s.nl = false, false
	switch tok {
	case ";", ",":
		s.reset = true
	case ":":
		if jsWordToken(s.prev) && s.prev != "default" && jsLabelBefore(s.prev2) {
			if s.labels++; s.labels > jsMaxLabels {
				return fmt.Sprintf("more than %d statement labels", jsMaxLabels)
			}
		}
	}
	s.prev2, s.prev = s.prev, tok
	if s.run++; s.base+s.run > jsMaxChain {
		return fmt.Sprintf("expressions or statements chained deeper than %d", jsMaxChain)
	}
	return ""
}

func (s *jsScan) open(kind byte) string {
	before := s.prev
	if why := s.count(string(kind)); why != "" {
		return why
	}
	head := kind == '(' && (s.prev2 == "if" || s.prev2 == "while" || s.prev2 == "for" || s.prev2 == "with")
	frame := jsFrame{kind: kind, run: s.run, base: s.base, head: head, block: -1, word: before, try: kind == '{' && s.prev2 == "try"}
	if kind == '{' && s.blocks != nil {
		fn, name := s.functionBody(before)
		*s.blocks = append(*s.blocks, jsBlock{Open: s.i - 1, Close: len(s.src), Func: fn, Name: name})
		frame.block = len(*s.blocks) - 1
	}
	s.stack = append(s.stack, frame)
	s.base += s.run
	s.run, s.prev = 0, string(kind)
	if len(s.stack) > jsMaxNesting {
		return fmt.Sprintf("nesting deeper than %d", jsMaxNesting)
	}
	return ""
}

// close ends the innermost bracket; the bracketed group is one token of the chain outside. The
// end of a template substitution resumes its template literal.
func (s *jsScan) close() string {
	if len(s.stack) == 0 {
		s.unmatched = append(s.unmatched, s.src[s.i-1])
		return s.count("}") // unbalanced: the parser reports it
	}
	f := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	s.run, s.base = f.run, f.base
	s.reset, s.nl = false, false
	closer := "}"
	switch f.kind {
	case '(':
		closer = ")"
		if f.head {
			closer = ")head"
		}
	case '[':
		closer = "]"
	}
	s.prev2, s.prev = s.prev, closer
	if f.block >= 0 {
		(*s.blocks)[f.block].Close = s.i - 1
	}
	if f.kind == '(' {
		s.lastParen.end, s.lastParen.word = s.i-1, f.word
	}
	if f.kind == '$' {
		return s.template()
	}
	return ""
}

// quoted skips a string literal; it ends at its quote or at the end of the line.
func (s *jsScan) quoted(q byte) {
	s.i++
	for s.i < len(s.src) {
		switch s.src[s.i] {
		case '\\':
			s.i += 2
			continue
		case q:
			s.i++
			return
		case '\n', '\r':
			return
		}
		s.i++
	}
}

// template skips template text up to its end (a token) or a substitution (an open level).
func (s *jsScan) template() string {
	for s.i < len(s.src) {
		switch s.src[s.i] {
		case '\\':
			s.i += 2
			continue
		case '`':
			s.i++
			return s.count("lit")
		case '$':
			if s.at(1) == '{' {
				s.i += 2
				return s.open('$')
			}
		}
		s.i++
	}
	return s.count("lit")
}

// regexAllowed reports whether a / here starts a regular expression literal for certain: after
// an opening bracket, an operator or a keyword that an expression follows. Anywhere else (after
// a name, a literal, a closing bracket, a dot, + or - that may end ++ or --, or a word that may
// be a name, as of or yield) the / is taken for a division, so that brackets after it are
// counted: the cautious side.
func (s *jsScan) regexAllowed() bool {
	switch s.prev {
	case "(", "[", "{", "$", ",", ";", ":", "=", "!", "&", "|", "?", "*", "%", "<", ">", "^", "~", ")head",
		"return", "typeof", "instanceof", "in", "new", "delete", "void", "throw", "case", "do", "else", "extends":
		return true
	}
	return false
}

// regex skips a regular expression literal if one ends on this line, and reports whether it did.
// After one that does not end, the rest of its line has none (the cautious side, as for a
// division): a line of such slashes would otherwise be scanned once per slash.
func (s *jsScan) regex() bool {
	if s.i < s.noRegex {
		return false
	}
	j, class := s.i+1, false
	for j < len(s.src) {
		switch c := s.src[j]; {
		case c == '\n' || c == '\r':
			s.noRegex = j
			return false
		case c == '\\':
			j++
		case c == '[':
			class = true
		case c == ']':
			class = false
		case c == '/' && !class:
			j++
			for j < len(s.src) && jsWordByte(s.src[j]) {
				j++
			}
			s.i = j
			return true
		}
		j++
	}
	s.noRegex = len(s.src)
	return false
}

func jsWordByte(c byte) bool {
	return c == '_' || c == '$' || c == '\\' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func jsWordToken(t string) bool { return t != "" && t != "lit" && jsWordByte(t[0]) }

// jsEndsExpr reports whether a token may end an expression (so that a newline after it may end
// the statement).
func jsEndsExpr(t string) bool {
	switch t {
	case ")", "]", "}", "lit":
		return true
	case "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else", "extends", "yield", "await", "async":
		return false
	}
	return jsWordToken(t)
}

// jsContinues reports whether a token after a newline continues the statement before it.
func jsContinues(t string) bool {
	switch t {
	case "else", "instanceof", "in", "of", "lit":
		return true
	}
	return !jsWordToken(t)
}

// jsStatementWord reports the keywords that begin a statement and never continue an expression.
func jsStatementWord(t string) bool {
	switch t {
	case "function", "class", "var", "let", "const", "if", "for", "while", "do", "return", "throw", "try", "switch", "break", "continue", "import", "export":
		return true
	}
	return false
}

// jsLabelBefore reports whether a name after token t, followed by a colon, is a statement label
// (not an object key or the middle of a conditional).
func jsLabelBefore(t string) bool {
	switch t {
	case ";", "}", ")", ":", "else", "do":
		return true
	}
	return false
}
