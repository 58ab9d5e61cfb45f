package evidence

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/rules"
)

// hunkFlow is goflow.go's analysis over the lines a diff shows of a Go file whose content is not
// known (--diff alone): the assignments those lines make, parsed one line at a time, tell whether
// the SQL text or the program a line passes on can carry input. What the hunks do not show is
// input: a name assigned on no visible line, or on a line that does not parse alone, is not safe.
type hunkFlow struct {
	g *goCheck
	c *fn // only its flow and the facts computed from it (safeText, fixedProgs) are used
}

var (
	goAssignLine = regexp.MustCompile(`^\s*((?:[A-Za-z_]\w*(?:\[[^\]]*\])?\s*,\s*)*[A-Za-z_]\w*(?:\[[^\]]*\])?)\s*(:=|=|\+=)\s*(.+?)\s*$`)
	goRangeLine  = regexp.MustCompile(`^\s*for\s+(\w+)(?:\s*,\s*(\w+))?\s*:?=\s*range\s+(.+?)\s*\{\s*$`)
	goVarLine    = regexp.MustCompile(`^\s*(var|const)\s+(\w+)(?:\s+[^=]+?)?\s*(?:=\s*(.+?))?\s*$`)
	goFuncLine   = regexp.MustCompile(`^\s*func\s*(?:\([^)]*\)\s*)?\w*\s*(?:\[[^\]]*\])?\(([^)]*)\)`)
	goFuncParam  = regexp.MustCompile(`(?:^|,)\s*([A-Za-z_]\w*)`)
)

// goStdImports are the names a hunk most likely uses for the packages the analysis knows.
var goStdImports = map[string]string{"strings": "strings", "fmt": "fmt", "strconv": "strconv", "exec": "os/exec", "filepath": "path/filepath", "path": "path",
	"os": "os", "io": "io", "ioutil": "io/ioutil", "json": "encoding/json", "xml": "encoding/xml", "http": "net/http", "sql": "database/sql",
	"md5": "crypto/md5", "sha1": "crypto/sha1", "sha256": "crypto/sha256", "sha512": "crypto/sha512", "tls": "crypto/tls", "gzip": "compress/gzip",
	"zip": "archive/zip", "tar": "archive/tar", "url": "net/url", "context": "context", "time": "time", "sync": "sync", "bufio": "bufio", "bytes": "bytes"}

func newHunkFlow(lines []viewLine) *hunkFlow {
	g := &goCheck{imports: goStdImports, consts: map[string]bool{}}
	f := &flow{assigns: map[string][]assignment{}, external: map[string]bool{}}
	parse := func(src string) ast.Expr {
		e, err := parser.ParseExpr(src)
		if err != nil {
			return nil // continued on another line, or not an expression: unknown
		}
		return e
	}
	for _, l := range lines {
		t := stripComment(l.text, "go")
		if m := goFuncLine.FindStringSubmatch(t); m != nil {
			for _, p := range goFuncParam.FindAllStringSubmatch(m[1], -1) {
				f.external[p[1]] = true
			}
			continue
		}
		if m := goRangeLine.FindStringSubmatch(t); m != nil {
			over := parse(m[3])
			for _, name := range []string{m[1], m[2]} {
				if name != "" && name != "_" {
					f.assigns[name] = append(f.assigns[name], assignment{rhs: over, index: -1, rangeOver: true, op: token.DEFINE})
				}
			}
			continue
		}
		if m := goVarLine.FindStringSubmatch(t); m != nil {
			var rhs ast.Expr = &ast.Ident{Name: "nil"}
			if m[3] != "" {
				rhs = parse(m[3])
			}
			if m[1] == "const" {
				if lit, ok := rhs.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					g.consts[m[2]] = true
				}
				continue
			}
			f.assigns[m[2]] = append(f.assigns[m[2]], assignment{rhs: rhs, index: -1, op: token.DEFINE})
			continue
		}
		m := goAssignLine.FindStringSubmatch(t)
		if m == nil {
			continue
		}
		names := strings.Split(m[1], ",")
		rhs := parse(m[3])
		op := map[string]token.Token{":=": token.DEFINE, "=": token.ASSIGN, "+=": token.ADD_ASSIGN}[m[2]]
		for i, n := range names {
			n = strings.TrimSpace(n)
			element := false
			if j := strings.IndexByte(n, '['); j >= 0 {
				n, element = n[:j], true
			}
			if n == "_" {
				continue
			}
			a := assignment{rhs: rhs, index: -1, element: element, op: op}
			if len(names) > 1 {
				a.index = i
			}
			f.assigns[n] = append(f.assigns[n], a)
		}
	}
	return &hunkFlow{g: g, c: &fn{flow: f}}
}

// lineExpr parses what a line of Go evaluates: the value it returns or assigns, or the line
// itself as an expression (a call statement).
func lineExpr(code string) ast.Expr {
	t := strings.TrimSpace(code)
	t = strings.TrimPrefix(t, "return ")
	if m := goAssignLine.FindStringSubmatch(t); m != nil {
		t = m[3]
	}
	e, err := parser.ParseExpr(t)
	if err != nil {
		return nil
	}
	return e
}

// safe reports whether the finding of rule on a line is refuted by what reaches it: the program
// a command runs is fixed, or every piece of SQL text built on the line is constant text.
func (h *hunkFlow) safe(rule, code string) bool {
	e := lineExpr(code)
	if e == nil {
		return false
	}
	g := h.g
	switch rule {
	case rules.RuleCommandInjection:
		progs, text := g.fixedProgs(h.c), g.safeText(h.c)
		found, safe := false, true
		ast.Inspect(e, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !g.pkgCall(call, "os/exec", "Command", "CommandContext") {
				return true
			}
			found = true
			args := call.Args
			if g.pkgCall(call, "os/exec", "CommandContext") && len(args) > 0 {
				args = args[1:]
			}
			if len(args) == 0 || !g.fixedProgram(args[0], progs) {
				safe = false
				return false
			}
			if prog, _ := constString(args[0]); isShell(prog) && len(args) >= 3 && !g.constText(args[2], text) {
				safe = false
			}
			return false
		})
		return found && safe
	case rules.RuleSQLInjection:
		text := g.safeText(h.c)
		found, safe := false, true
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if g.pkgCall(n, "fmt", "Sprintf") && len(n.Args) > 0 && sqlLiteral(n.Args[0]) {
					found = true
					safe = safe && g.constText(n, text)
					return false
				}
			case *ast.BinaryExpr:
				if n.Op == token.ADD && mentionsSQL(n) {
					found = true
					safe = safe && g.constText(n, text)
					return false
				}
			}
			return true
		})
		return found && safe
	}
	return false
}

func sqlLiteral(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	return ok && lit.Kind == token.STRING && sqlWords.MatchString(lit.Value)
}

func mentionsSQL(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if x, ok := n.(ast.Expr); ok && sqlLiteral(x) {
			found = true
		}
		return !found
	})
	return found
}
