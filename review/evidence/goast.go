package evidence

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"strconv"
	"strings"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/compare"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

// goAnalyzer runs the AST-based checks on Go files whose head content is known and parses; the
// line analyzer covers the others. Hand-written because these checks must work without type
// information: a diff alone, or a package whose dependencies do not resolve offline, which
// gosec and staticcheck cannot analyse. Where the trees type-check, the type-checked analysis
// (review/evidence) finds the same weaknesses and the two findings merge (see corroborate); the
// performance checks here (I/O, regexp compilation, defer and goroutines in loops) have no
// counterpart in a maintained analyzer.
type goAnalyzer struct{}

func (goAnalyzer) Name() string { return "go-ast" }

// DefaultMaxFunctionLines is how many added lines make a function "very large".
const DefaultMaxFunctionLines = 80

func (goAnalyzer) Analyze(s *scan.Scan) {
	for _, f := range s.CodeFiles() {
		fset, file, ok := s.Go(f)
		fragment := false
		if !ok && !f.HasContent && f.Language() == "go" && !f.IsTest() && s.Change.Trees == nil {
			// Hunks only: the added lines' AST checks run on the hunks' head sides.
			fset, file, ok = compare.GoFragmentFile(f)
			fragment = true
		}
		if !ok {
			continue
		}
		g := &goCheck{s: s, f: f, fset: fset, file: file, imports: map[string]string{}, consts: map[string]bool{}, fragment: fragment}
		g.run()
	}
}

type goCheck struct {
	s       *scan.Scan
	f       *change.File
	fset    *token.FileSet
	file    *ast.File
	imports map[string]string // local name -> import path
	consts  map[string]bool   // package-level constant names
	// fragment: file is the hunks' head sides (goFragmentFile), not the whole file; a package
	// name no import shows is taken as the standard package goStdImports names.
	fragment bool
}

// fn holds what one function body tells about its variables, collected before the checks.
type fn struct {
	name     string
	tainted  map[string]bool // derived from request input
	sqlVars  map[string]bool // hold SQL built from strings
	strVars  map[string]bool // declared as strings
	parsed   map[string]int  // converted to numbers (strconv), with the line
	allowed  map[string]int  // checked against an allowlist (map index, switch, Contains), with the line
	limiter  bool            // bounds concurrency (SetLimit, semaphore)
	pathSafe []int           // lines of path checks (IsLocal, HasPrefix, Rel, "..")
	flow     *flow           // what the function assigns to its locals (goflow.go)
	text     map[string]bool // hold only constant text and placeholders; see safeText
	programs map[string]bool // name a fixed program; see fixedProgs
	sqlText  map[string]bool // were given SQL text
}

func (g *goCheck) line(n ast.Node) int { return g.fset.Position(n.Pos()).Line }

func (g *goCheck) report(rule string, n ast.Node, msg string) {
	if l := g.line(n); g.f.IsAdded(l) {
		if g.fragment {
			msg += compare.FragmentNote
		}
		g.s.Report(rule, g.f.Path, l, msg)
	}
}

func (g *goCheck) run() {
	g.imports = importNames(g.file)
	if g.fragment {
		for name, p := range goStdImports {
			if _, ok := g.imports[name]; !ok {
				g.imports[name] = p
			}
		}
	}
	for _, d := range g.file.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.CONST {
			for _, sp := range gd.Specs {
				for _, n := range sp.(*ast.ValueSpec).Names {
					g.consts[n.Name] = true
				}
			}
		}
	}
	// TLS settings are often package-level variables.
	ast.Inspect(g.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			if k, ok := n.Key.(*ast.Ident); ok && k.Name == "InsecureSkipVerify" && isTrue(n.Value) {
				g.report(rules.RuleTLSVerifyOff, n, "tls.Config sets InsecureSkipVerify: true")
			}
		case *ast.AssignStmt:
			if sel, ok := n.Lhs[0].(*ast.SelectorExpr); ok && sel.Sel.Name == "InsecureSkipVerify" && len(n.Rhs) == 1 && isTrue(n.Rhs[0]) {
				g.report(rules.RuleTLSVerifyOff, n, "InsecureSkipVerify is set to true")
			}
		}
		return true
	})
	for _, d := range g.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		g.largeFunction(fd)
		g.function(fd)
		if !g.f.IsTest() {
			g.lengthGuards(fd)
		}
	}
}

// importNames maps the names a file imports packages under to their paths.
func importNames(file *ast.File) map[string]string {
	out := map[string]string{}
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := compare.AssumedName(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		out[name] = p
	}
	return out
}

func isTrue(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "true"
}

func (g *goCheck) largeFunction(fd *ast.FuncDecl) {
	start, end := g.line(fd), g.fset.Position(fd.End()).Line
	added, first := 0, 0
	for l := start; l <= end; l++ {
		if g.f.IsAdded(l) {
			added++
			if first == 0 {
				first = l
			}
		}
	}
	if added > DefaultMaxFunctionLines {
		g.s.Report(rules.RuleLargeFunction, g.f.Path, first, fmt.Sprintf("function %s gains %d lines (%d in all); more than %d added lines in one function", fd.Name.Name, added, end-start+1, DefaultMaxFunctionLines))
	}
}

var (
	requestInput = regexp.MustCompile(`\.URL\.Query\(\)|\.(?:FormValue|PostFormValue|PathValue)\(|\bmux\.Vars\(|\bchi\.URLParam\(|\b(?:c|ctx)\.(?:Param|Query|DefaultQuery|PostForm|Params\.ByName)\(|\.URL\.(?:Path|RawQuery)\b|\.Header\.Get\(`)
	sqlWords     = regexp.MustCompile(`(?i)\b(?:select|insert|update|delete|where|from|values|order\s+by|group\s+by|join)\b`)
	secretish    = regexp.MustCompile(`(?i)token|secret|nonce|salt|passw|session|otp|csrf|api_?key|reset|verif`)
	passwordish  = regexp.MustCompile(`(?i)passw|pwd`)
	limiterName  = regexp.MustCompile(`(?i)sem|limit|slot|token|throttle|worker`)
)

func text(e ast.Node) string {
	if x, ok := e.(ast.Expr); ok {
		return types.ExprString(x)
	}
	return ""
}

// pkgCall reports whether call is pkg.Name(...) for an import of path.
func (g *goCheck) pkgCall(call *ast.CallExpr, path string, names ...string) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok || g.imports[id.Name] != path {
		return false
	}
	for _, n := range names {
		if sel.Sel.Name == n {
			return true
		}
	}
	return len(names) == 0
}

func (g *goCheck) function(fd *ast.FuncDecl) {
	c := &fn{name: fd.Name.Name, tainted: map[string]bool{}, sqlVars: map[string]bool{}, strVars: map[string]bool{}, parsed: map[string]int{}, allowed: map[string]int{}, sqlText: map[string]bool{}}
	c.flow = collectFlow(fd)
	g.collect(fd.Body, c)
	var stack []ast.Node
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		g.visit(n, stack, c)
		return true
	})
}

// safeText returns the function's locals that hold only constant text, computed on first use.
func (g *goCheck) safeText(c *fn) map[string]bool {
	if c.text == nil {
		c.text = g.placeholderText(c.flow)
	}
	return c.text
}

// fixedProgs returns the function's locals that name a fixed program, computed on first use.
func (g *goCheck) fixedProgs(c *fn) map[string]bool {
	if c.programs == nil {
		c.programs = g.fixedPrograms(c.flow)
	}
	return c.programs
}

// collect walks the body in source order to learn which variables are tainted, hold SQL, are
// strings, were parsed as numbers or checked against an allowlist.
func (g *goCheck) collect(body *ast.BlockStmt, c *fn) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			g.collectAssign(n, c)
		case *ast.ValueSpec:
			if t, ok := n.Type.(*ast.Ident); ok && t.Name == "string" {
				for _, name := range n.Names {
					c.strVars[name.Name] = true
				}
			}
			for i, v := range n.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING && i < len(n.Names) {
					c.strVars[n.Names[i].Name] = true
				}
			}
		case *ast.IndexExpr:
			// allowed[x] used as a check.
			if id, ok := n.Index.(*ast.Ident); ok {
				if _, seen := c.allowed[id.Name]; !seen {
					c.allowed[id.Name] = g.line(n)
				}
			}
		case *ast.SwitchStmt:
			if id, ok := n.Tag.(*ast.Ident); ok {
				c.allowed[id.Name] = g.line(n)
			}
		case *ast.SendStmt:
			if limiterName.MatchString(text(n.Chan)) {
				c.limiter = true
			}
		case *ast.CallExpr:
			g.collectCall(n, c)
		}
		return true
	})
}

// collectAssign learns from assignment n which names it taints (or cleans with
// filepath.Base), parses as numbers, sets to string literals or SQL text, and builds SQL in.
func (g *goCheck) collectAssign(n *ast.AssignStmt, c *fn) {
	for i, lhs := range n.Lhs {
		id, ok := lhs.(*ast.Ident)
		if !ok || id.Name == "_" {
			continue
		}
		var rhs ast.Expr
		if len(n.Rhs) == len(n.Lhs) {
			rhs = n.Rhs[i]
		} else if len(n.Rhs) == 1 {
			rhs = n.Rhs[0]
		}
		if rhs == nil {
			continue
		}
		rt := text(rhs)
		if call, ok := rhs.(*ast.CallExpr); ok && g.pkgCall(call, "path/filepath", "Base") {
			delete(c.tainted, id.Name)
		} else if requestInput.MatchString(rt) || g.mentions(rhs, c.tainted) {
			c.tainted[id.Name] = true
		}
		if call, ok := rhs.(*ast.CallExpr); ok && g.pkgCall(call, "strconv", "Atoi", "ParseInt", "ParseUint", "ParseFloat", "ParseBool") && i == 0 {
			c.parsed[id.Name] = g.line(n)
		}
		if lit, ok := rhs.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			c.strVars[id.Name] = true
			if sqlWords.MatchString(lit.Value) {
				c.sqlText[id.Name] = true
			}
		}
		// SQL text extended with something other than constant text is built from strings.
		appended := n.Tok == token.ADD_ASSIGN && (c.sqlVars[id.Name] || c.sqlText[id.Name] && !g.constText(rhs, g.safeText(c)))
		if dyn, _ := g.dynamicSQL(rhs, c); dyn || appended {
			c.sqlVars[id.Name] = true
		}
	}
}

// collectCall learns from call n whether the function bounds its concurrency, which names it
// checks against an allowlist, and where it checks a path.
func (g *goCheck) collectCall(n *ast.CallExpr, c *fn) {
	if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
		switch sel.Sel.Name {
		case "SetLimit", "Acquire", "TryAcquire":
			c.limiter = true
		}
	}
	switch {
	case g.pkgCall(n, "slices", "Contains"), g.pkgCall(n, "sort", "SearchStrings"):
		if len(n.Args) == 2 {
			if id, ok := n.Args[1].(*ast.Ident); ok {
				c.allowed[id.Name] = g.line(n)
			}
		}
	case g.pkgCall(n, "path/filepath", "IsLocal", "Rel"), g.pkgCall(n, "strings", "HasPrefix") && strings.Contains(text(n), "ath"),
		g.pkgCall(n, "strings", "Contains") && strings.Contains(text(n), `".."`), g.pkgCall(n, "os", "OpenRoot"):
		c.pathSafe = append(c.pathSafe, g.line(n))
	}
}

// mentions reports whether e refers to any of the names.
func (g *goCheck) mentions(e ast.Node, names map[string]bool) bool {
	if len(names) == 0 {
		return false
	}
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && names[id.Name] {
			found = true
		}
		return !found
	})
	return found
}

// dynamicSQL reports whether e builds SQL text from non-constant parts, with the identifiers
// that flow into it.
func (g *goCheck) dynamicSQL(e ast.Expr, c *fn) (bool, []string) {
	switch e := e.(type) {
	case *ast.Ident:
		return c.sqlVars[e.Name], nil
	case *ast.ParenExpr:
		return g.dynamicSQL(e.X, c)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return false, nil
		}
		return g.concatSQL(e, c)
	case *ast.CallExpr:
		return g.sprintfSQL(e, c)
	}
	return false, nil
}

// concatSQL reports whether concatenation e joins SQL text (its literals, and SQL variables)
// with parts that are not constant text or placeholders, with the identifiers of those parts.
func (g *goCheck) concatSQL(e *ast.BinaryExpr, c *fn) (bool, []string) {
	var lits strings.Builder
	var idents []string
	dynamic := false
	var walk func(x ast.Expr)
	walk = func(x ast.Expr) {
		switch x := x.(type) {
		case *ast.BinaryExpr:
			if x.Op == token.ADD {
				walk(x.X)
				walk(x.Y)
				return
			}
			dynamic = true
		case *ast.ParenExpr:
			walk(x.X)
		case *ast.BasicLit:
			lits.WriteString(x.Value)
		case *ast.Ident:
			if g.consts[x.Name] || g.safeText(c)[x.Name] {
				return // constant text or placeholders: nothing to inject
			}
			if c.sqlVars[x.Name] {
				lits.WriteString(" select ")
			}
			dynamic = true
			idents = append(idents, x.Name)
		case *ast.CallExpr:
			if g.constText(x, g.safeText(c)) {
				return // digits, or placeholders built from constants: nothing to inject
			}
			dynamic = true
			idents = append(idents, compare.IdentsOf(x)...)
		default:
			dynamic = true
			idents = append(idents, compare.IdentsOf(x)...)
		}
	}
	walk(e)
	return dynamic && sqlWords.MatchString(lits.String()), idents
}

// sprintfSQL reports whether call e is an fmt.Sprintf of SQL text with arguments that are not
// constant text, with the identifiers of those arguments.
func (g *goCheck) sprintfSQL(e *ast.CallExpr, c *fn) (bool, []string) {
	if !g.pkgCall(e, "fmt", "Sprintf") || len(e.Args) < 2 {
		return false, nil
	}
	lit, ok := e.Args[0].(*ast.BasicLit)
	if !ok || !sqlWords.MatchString(lit.Value) {
		return false, nil
	}
	var idents []string
	dynamic := false
	for _, a := range e.Args[1:] {
		if _, isLit := a.(*ast.BasicLit); isLit {
			continue
		}
		if g.constText(a, g.safeText(c)) {
			continue
		}
		dynamic = true
		idents = append(idents, compare.IdentsOf(a)...)
	}
	return dynamic, idents
}

// loops returns the loops whose body encloses the top of the stack; within reports whether to
// stop at the nearest function literal.
func loops(stack []ast.Node, withinFunc bool) []ast.Node {
	var out []ast.Node
	for i := len(stack) - 2; i >= 0; i-- {
		switch l := stack[i].(type) {
		case *ast.FuncLit:
			if withinFunc {
				return out
			}
		case *ast.ForStmt:
			if stack[i+1] == l.Body {
				out = append(out, l)
			}
		case *ast.RangeStmt:
			if stack[i+1] == l.Body {
				out = append(out, l)
			}
		}
	}
	return out
}

func (g *goCheck) visit(n ast.Node, stack []ast.Node, c *fn) {
	switch n := n.(type) {
	case *ast.CallExpr:
		g.call(n, stack, c)
	case *ast.DeferStmt:
		if len(loops(stack, true)) > 0 {
			g.report(rules.RuleDeferInLoop, n, fmt.Sprintf("defer %s runs when %s returns, not at the end of each iteration", text(n.Call.Fun), c.name))
		}
	case *ast.GoStmt:
		if len(loops(stack, true)) > 0 && !c.limiter {
			g.report(rules.RuleUnboundedGo, n, "a goroutine is started per iteration with no bound on how many run at once")
		}
	case *ast.AssignStmt:
		g.assign(n, stack, c)
	case *ast.IfStmt:
		if b, ok := n.Cond.(*ast.BinaryExpr); ok && b.Op == token.NEQ && text(b.X) == "err" && text(b.Y) == "nil" && len(n.Body.List) == 0 {
			g.report(rules.RuleIgnoredError, n, "if err != nil has an empty body: the error is dropped")
		}
	case *ast.ExprStmt:
		if call, ok := n.X.(*ast.CallExpr); ok && g.dropsError(call) {
			g.report(rules.RuleIgnoredError, n, fmt.Sprintf("the error returned by %s is not checked", scan.Clip(text(call.Fun), 60)))
		}
	}
}

// dropsError reports calls whose only purpose is their error, used as a bare statement.
func (g *goCheck) dropsError(call *ast.CallExpr) bool {
	switch {
	case g.pkgCall(call, "encoding/json", "Unmarshal"), g.pkgCall(call, "gopkg.in/yaml.v3", "Unmarshal"), g.pkgCall(call, "encoding/xml", "Unmarshal"),
		g.pkgCall(call, "os", "Remove", "RemoveAll", "Setenv", "MkdirAll", "Mkdir", "WriteFile", "Chmod", "Rename", "Symlink"),
		g.pkgCall(call, "io", "Copy", "ReadFull", "WriteString"):
		return true
	}
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
		switch sel.Sel.Name {
		case "Scan", "Commit", "Exec", "ExecContext", "Decode", "Unmarshal", "Sync":
			return true
		}
	}
	return false
}

func (g *goCheck) assign(n *ast.AssignStmt, stack []ast.Node, c *fn) {
	if n.Tok == token.ADD_ASSIGN && len(n.Lhs) == 1 && len(loops(stack, false)) > 0 {
		if id, ok := n.Lhs[0].(*ast.Ident); ok && (c.strVars[id.Name] || isStringy(n.Rhs[0])) && !c.sqlVars[id.Name] {
			g.report(rules.RuleStringConcatLoop, n, fmt.Sprintf("%s += copies the whole string on every iteration", id.Name))
		}
	}
	if len(n.Rhs) != 1 {
		return
	}
	call, ok := n.Rhs[0].(*ast.CallExpr)
	if !ok {
		return
	}
	last, ok := n.Lhs[len(n.Lhs)-1].(*ast.Ident)
	if !ok || last.Name != "_" || g.harmlessIgnore(call) {
		return
	}
	g.report(rules.RuleIgnoredError, n, fmt.Sprintf("the error returned by %s is assigned to _", scan.Clip(text(call.Fun), 60)))
}

// harmlessIgnore: writes to in-memory builders and fmt printing whose errors are conventionally
// ignored.
func (g *goCheck) harmlessIgnore(call *ast.CallExpr) bool {
	if g.pkgCall(call, "fmt") {
		return true
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		// A plain function call with _ for its last result: could be anything; only flag calls
		// that conventionally return an error.
		return true
	}
	if strings.HasPrefix(sel.Sel.Name, "Write") {
		switch text(sel.X) {
		case "b", "sb", "buf", "builder", "h", "hash", "w.buf":
			return true
		}
	}
	// Map look-ups and type assertions are not calls; two-value calls like strconv parse are.
	return false
}

func isStringy(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.STRING
	case *ast.BinaryExpr:
		return isStringy(e.X) || isStringy(e.Y)
	case *ast.CallExpr:
		t := text(e.Fun)
		return strings.HasPrefix(t, "fmt.Sprint") || t == "string" || t == "strconv.Itoa" || t == "strconv.FormatInt"
	}
	return false
}

// call runs the checks of one call expression: SQL built from strings, I/O per loop iteration,
// commands and file paths from input, weak password hashes, math/rand secrets, library panics.
func (g *goCheck) call(call *ast.CallExpr, stack []ast.Node, c *fn) {
	inLoop := len(loops(stack, false)) > 0
	sel, isSel := call.Fun.(*ast.SelectorExpr)

	// SQL built from strings.
	if isSel {
		if pos, ok := sqlMethods[sel.Sel.Name]; ok && len(call.Args) > pos {
			if dyn, idents := g.dynamicSQL(call.Args[pos], c); dyn {
				g.report(rules.RuleSQLInjection, call, fmt.Sprintf("%s receives SQL built from strings (%s)", text(call.Fun), scan.Clip(text(call.Args[pos]), 80)))
				g.mitigations(rules.RuleSQLInjection, call, idents, c, "converted to a number")
			}
		}
	}
	// I/O per iteration.
	if inLoop && isSel {
		recv := text(sel.X)
		switch {
		case ioMethods[sel.Sel.Name] && !g.isImport(sel.X):
			g.report(rules.RuleCallInLoop, call, fmt.Sprintf("%s runs a database round trip on every iteration", text(call.Fun)))
		case g.pkgCall(call, "net/http", "Get", "Post", "Head", "PostForm"),
			sel.Sel.Name == "Do" && strings.Contains(strings.ToLower(recv), "client"):
			g.report(rules.RuleCallInLoop, call, fmt.Sprintf("%s makes an HTTP request on every iteration", text(call.Fun)))
		}
	}
	g.commandCall(call, c)
	g.fileCall(call, c)
	// Weak hashes of passwords.
	if g.pkgCall(call, "crypto/md5", "Sum", "New") || g.pkgCall(call, "crypto/sha1", "Sum", "New") ||
		g.pkgCall(call, "crypto/sha256", "Sum256", "New") || g.pkgCall(call, "crypto/sha512", "Sum512", "New") {
		if passwordish.MatchString(c.name) || passwordish.MatchString(text(call)) || g.assignedTo(stack, passwordish) {
			g.report(rules.RuleWeakPasswordHash, call, fmt.Sprintf("%s hashes a password with a fast, unsalted hash", text(call.Fun)))
		}
	}
	// math/rand for secrets.
	if isSel {
		if id, ok := sel.X.(*ast.Ident); ok && strings.HasPrefix(g.imports[id.Name], "math/rand") {
			if secretish.MatchString(c.name) || g.assignedTo(stack, secretish) {
				g.report(rules.RuleInsecureRandom, call, fmt.Sprintf("%s (math/rand) generates a secret value in %s", text(call.Fun), c.name))
			}
		}
	}
	// panic in library code.
	if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "panic" && g.file.Name.Name != "main" && !g.f.IsTest() &&
		c.name != "init" && !strings.HasPrefix(c.name, "Must") && !strings.HasPrefix(c.name, "must") {
		g.report(rules.RulePanicInLibrary, call, fmt.Sprintf("%s panics in package %s instead of returning an error", c.name, g.file.Name.Name))
	}
}

// commandCall reports an exec.Command or exec.CommandContext whose program is chosen at run
// time, or that runs a shell with -c on text that is not constant.
func (g *goCheck) commandCall(call *ast.CallExpr, c *fn) {
	if !g.pkgCall(call, "os/exec", "Command", "CommandContext") {
		return
	}
	args := call.Args
	if g.pkgCall(call, "os/exec", "CommandContext") && len(args) > 0 {
		args = args[1:]
	}
	if len(args) == 0 {
		return
	}
	prog, progConst := constString(args[0])
	var idents []string
	risky := false
	switch {
	case !progConst && !g.fixedProgram(args[0], g.fixedProgs(c)):
		risky, idents = true, compare.IdentsOf(args[0])
	case isShell(prog) && len(args) >= 3:
		if flag, _ := constString(args[1]); flag == "-c" || flag == "/c" {
			if !g.constText(args[2], g.safeText(c)) {
				risky, idents = true, compare.IdentsOf(args[2])
			}
		}
	}
	if risky {
		g.report(rules.RuleCommandInjection, call, fmt.Sprintf("%s runs a command chosen or built at run time (%s)", text(call.Fun), scan.Clip(text(args[0]), 60)))
		g.mitigations(rules.RuleCommandInjection, call, idents, c, "checked against an allowlist")
	}
}

// fileCall reports a file access (os, io/ioutil, http.ServeFile) with a path derived from
// request input, and on an added line the path checks of the function as mitigations.
func (g *goCheck) fileCall(call *ast.CallExpr, c *fn) {
	if !g.pkgCall(call, "os", "Open", "OpenFile", "ReadFile", "WriteFile", "Create", "Remove", "RemoveAll", "ReadDir", "Stat") &&
		!g.pkgCall(call, "io/ioutil", "ReadFile", "WriteFile") && !g.pkgCall(call, "net/http", "ServeFile") {
		return
	}
	args := call.Args
	if g.pkgCall(call, "net/http", "ServeFile") && len(args) == 3 {
		args = args[2:]
	}
	if len(args) > 0 && (requestInput.MatchString(text(args[0])) || g.mentions(args[0], c.tainted)) {
		g.report(rules.RulePathTraversal, call, fmt.Sprintf("%s opens a path derived from request input (%s)", text(call.Fun), scan.Clip(text(args[0]), 60)))
		if g.f.IsAdded(g.line(call)) {
			for _, l := range c.pathSafe {
				g.s.Mitigation(rules.RulePathTraversal, g.f.Path, l, "the path is checked to stay inside its root before use")
			}
		}
	}
}

func (g *goCheck) isImport(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && g.imports[id.Name] != ""
}

// assignedTo reports whether the call's value is assigned to a name matching re.
func (g *goCheck) assignedTo(stack []ast.Node, re *regexp.Regexp) bool {
	for i := len(stack) - 2; i >= 0; i-- {
		switch s := stack[i].(type) {
		case *ast.AssignStmt:
			for _, l := range s.Lhs {
				if re.MatchString(text(l)) {
					return true
				}
			}
			return false
		case *ast.ValueSpec:
			for _, n := range s.Names {
				if re.MatchString(n.Name) {
					return true
				}
			}
			return false
		case *ast.KeyValueExpr:
			return re.MatchString(text(s.Key))
		case ast.Stmt:
			return false
		}
	}
	return false
}

// mitigations records checks in the same function that neutralise a finding: every identifier
// flowing into it was parsed as a number, or checked against an allowlist.
func (g *goCheck) mitigations(rule string, call ast.Node, idents []string, c *fn, how string) {
	if !g.f.IsAdded(g.line(call)) || len(idents) == 0 {
		return
	}
	var lines []int
	for _, id := range idents {
		l, ok := c.parsed[id]
		if !ok {
			l, ok = c.allowed[id]
		}
		if !ok {
			return
		}
		lines = append(lines, l)
	}
	for _, l := range lines {
		g.s.Mitigation(rule, g.f.Path, l, fmt.Sprintf("the input that reaches %s:%d is %s first", g.f.Path, g.line(call), how))
	}
}

func constString(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

func isShell(p string) bool {
	switch p {
	case "sh", "bash", "zsh", "/bin/sh", "/bin/bash", "/usr/bin/env", "cmd", "cmd.exe", "powershell", "pwsh":
		return true
	}
	return false
}
