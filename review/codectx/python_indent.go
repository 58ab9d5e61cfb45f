package codectx

import (
	"regexp"
	"strings"
)

// logical is one of Python's logical lines: its physical lines and its indentation.
type logical struct {
	start, end, indent int
	text               string
}

// pyLogicalLines splits Python source into logical lines the way Python's tokenizer does: a
// statement goes on across lines inside brackets, inside a triple-quoted string and after a
// backslash; blank and comment-only lines are not logical lines. Tabs indent to the next
// multiple of eight. It reads each byte once.
func pyLogicalLines(lines []string) []logical {
	var (
		out   []logical
		depth int
		quote byte // the open string's quote, 0 outside one
		tripl bool
		cont  bool
	)
	for i, line := range lines {
		n := i + 1
		if depth == 0 && quote == 0 && !cont {
			indent, text := pyIndent(line)
			if text != "" && text[0] != '#' {
				out = append(out, logical{start: n, end: n, indent: indent, text: text})
			}
		} else if len(out) > 0 {
			out[len(out)-1].end = n
		}
		cont = false
		for j := 0; j < len(line); j++ {
			ch := line[j]
			if quote != 0 {
				switch {
				case ch == '\\':
					if j == len(line)-1 {
						cont = !tripl
					}
					j++
				case ch == quote && (!tripl || strings.HasPrefix(line[j:], strings.Repeat(string(quote), 3))):
					if tripl {
						j += 2
					}
					quote, tripl = 0, false
				}
				continue
			}
			switch ch {
			case '#':
				j = len(line)
			case '"', '\'':
				quote = ch
				if strings.HasPrefix(line[j:], strings.Repeat(string(ch), 3)) {
					tripl = true
					j += 2
				}
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				if depth > 0 {
					depth--
				}
			case '\\':
				if j == len(line)-1 {
					cont = true
				}
			}
		}
		if quote != 0 && !tripl && !cont {
			quote = 0 // an unterminated one-line string ends with its line
		}
	}
	return out
}

func pyIndent(line string) (int, string) {
	w := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			w++
		case '\t':
			w = (w/8 + 1) * 8
		case '\f':
			w = 0
		default:
			return w, strings.TrimRight(line[i:], " \t\r")
		}
	}
	return w, ""
}

var pyDef = regexp.MustCompile(`^(async\s+def|def|class)\s+([A-Za-z_][A-Za-z0-9_]*)`)

// pyIndentScopes finds a Python file's functions, methods and classes by indentation: a
// definition runs from its decorators to the last logical line indented deeper than it.
func pyIndentScopes(p string, src []byte) []Scope {
	lines := splitLines(src)
	ll := pyLogicalLines(lines)
	type open struct {
		scope  Scope
		indent int
		// inner are the lines of the definitions nested in it, whose calls are theirs.
		inner [][2]int
	}
	var (
		stack []open
		out   []Scope
	)
	closeTo := func(indent, end int) {
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			top := stack[len(stack)-1]
			s := top.scope
			s.End = end
			if s.Function {
				s.Calls = callsIn(ownLines(lines, s.Start, s.End, top.inner), s.Name)
			}
			out = append(out, s)
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				parent := &stack[len(stack)-1]
				parent.inner = append(parent.inner, [2]int{s.Start, s.End})
			}
		}
	}
	for k, l := range ll {
		prevEnd := 0
		if k > 0 {
			prevEnd = ll[k-1].end
		}
		closeTo(l.indent, prevEnd)
		m := pyDef.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		start := l.start
		for d := k - 1; d >= 0 && ll[d].indent == l.indent && strings.HasPrefix(ll[d].text, "@"); d-- {
			start = ll[d].start
		}
		kind := strings.Join(strings.Fields(m[1]), " ")
		stack = append(stack, open{scope: Scope{Path: p, Name: m[2], Label: kind + " " + m[2], Function: kind != "class", Start: start}, indent: l.indent})
	}
	if len(ll) > 0 {
		closeTo(0, ll[len(ll)-1].end)
	}
	return out
}

// ownLines are lines start..end (1-based) without the nested definitions' lines, so that each
// line's calls are read once, by its innermost definition.
func ownLines(lines []string, start, end int, inner [][2]int) []string {
	var out []string
	n := start
	for _, r := range inner {
		if r[0] > n {
			out = append(out, lines[n-1:r[0]-1]...)
		}
		n = max(n, r[1]+1)
	}
	if n <= end {
		out = append(out, lines[n-1:end]...)
	}
	return out
}
