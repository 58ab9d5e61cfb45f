package evidence

import (
	"fmt"
	"go/ast"
	"go/token"
	"path"
	"strconv"
	"strings"

	"github.com/debatebot/debatebot/toulmin"
)

// Hard-coded keys found by use rather than by name: a literal that reaches the key parameter of a
// signing, MAC, cipher, cookie-store or basic-auth call is a credential whatever the variable
// holding it is called and however short it is. Hand-written because gosec's G101 looks at names
// and entropy, not at where a value goes, and this must also work on files whose dependencies do
// not resolve (no type information: calls are resolved through the file's import paths).

// keySink is one call that takes a key.
type keySink struct {
	paths []string // import paths of the package (functions) or that the file must import (methods)
	name  string
	// method: called on a value (x.Name(...)), not as pkg.Name(...).
	method bool
	// args are the indexes of key arguments; from means every argument from that index on.
	args []int
	from int
	// keyfunc: the argument at keyfuncArg is a jwt.Keyfunc whose returned key is checked.
	keyfuncArg int
	what       string
	critical   bool
}

var (
	jwtPaths = []string{"github.com/golang-jwt/jwt", "github.com/golang-jwt/jwt/v4", "github.com/golang-jwt/jwt/v5",
		"github.com/dgrijalva/jwt-go", "github.com/form3tech-oss/jwt-go"}
	jwtauthPaths = []string{"github.com/go-chi/jwtauth", "github.com/go-chi/jwtauth/v5"}
)

var keySinks = []keySink{
	{paths: jwtPaths, name: "SignedString", method: true, args: []int{0}, from: -1, keyfuncArg: -1, what: "the JWT signing key of (*jwt.Token).SignedString", critical: true},
	{paths: jwtPaths, name: "Parse", args: nil, from: -1, keyfuncArg: 1, what: "the JWT verification key returned to jwt.Parse"},
	{paths: jwtPaths, name: "ParseWithClaims", from: -1, keyfuncArg: 2, what: "the JWT verification key returned to jwt.ParseWithClaims"},
	{paths: jwtPaths, name: "Parse", method: true, from: -1, keyfuncArg: 1, what: "the JWT verification key returned to (*jwt.Parser).Parse"},
	{paths: jwtPaths, name: "ParseWithClaims", method: true, from: -1, keyfuncArg: 2, what: "the JWT verification key returned to (*jwt.Parser).ParseWithClaims"},
	{paths: jwtauthPaths, name: "New", args: []int{1, 2}, from: -1, keyfuncArg: -1, what: "the JWT signing key of jwtauth.New", critical: true},
	{paths: []string{"crypto/hmac"}, name: "New", args: []int{1}, from: -1, keyfuncArg: -1, what: "the HMAC key of hmac.New"},
	{paths: []string{"crypto/aes"}, name: "NewCipher", args: []int{0}, from: -1, keyfuncArg: -1, what: "the AES key of aes.NewCipher"},
	{paths: []string{"crypto/des"}, name: "NewCipher", args: []int{0}, from: -1, keyfuncArg: -1, what: "the DES key of des.NewCipher"},
	{paths: []string{"crypto/des"}, name: "NewTripleDESCipher", args: []int{0}, from: -1, keyfuncArg: -1, what: "the 3DES key of des.NewTripleDESCipher"},
	{paths: []string{"golang.org/x/crypto/chacha20poly1305"}, name: "New", args: []int{0}, from: -1, keyfuncArg: -1, what: "the key of chacha20poly1305.New"},
	{paths: []string{"golang.org/x/crypto/chacha20poly1305"}, name: "NewX", args: []int{0}, from: -1, keyfuncArg: -1, what: "the key of chacha20poly1305.NewX"},
	{paths: []string{"github.com/gorilla/sessions"}, name: "NewCookieStore", from: 0, keyfuncArg: -1, what: "a key of sessions.NewCookieStore"},
	{paths: []string{"github.com/gorilla/sessions"}, name: "NewFilesystemStore", from: 1, keyfuncArg: -1, what: "a key of sessions.NewFilesystemStore"},
	{paths: []string{"github.com/gorilla/securecookie"}, name: "New", args: []int{0, 1}, from: -1, keyfuncArg: -1, what: "a key of securecookie.New"},
	{name: "SetBasicAuth", method: true, args: []int{1}, from: -1, keyfuncArg: -1, what: "the password of SetBasicAuth"},
}

// keyLiteral is a literal found to reach a key.
type keyLiteral struct {
	value string
	path  string // file of the literal, when not the sink's
	line  int
	via   string // how: "", "constant k", "variable k", "fallback of variable k"
}

// hardcodedKeys reports the sinks in fd whose key is a literal.
func (g *goCheck) hardcodedKeys(fd *ast.FuncDecl) {
	if strings.HasSuffix(g.f.Path, "_test.go") {
		return // test fixtures
	}
	assigns := funcAssignments(fd)
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		for _, sk := range keySinks {
			if !g.isSink(call, sk) {
				continue
			}
			var keys []ast.Expr
			for _, i := range sk.args {
				if i < len(call.Args) {
					keys = append(keys, call.Args[i])
				}
			}
			if sk.from >= 0 {
				for i := sk.from; i < len(call.Args); i++ {
					keys = append(keys, call.Args[i])
				}
			}
			scope := assigns
			if sk.keyfuncArg >= 0 && sk.keyfuncArg < len(call.Args) {
				results, own := g.keyfuncResults(call.Args[sk.keyfuncArg])
				keys = append(keys, results...)
				if own != nil {
					scope = own
				}
			}
			for _, k := range keys {
				if lit, ok := g.literalKey(k, scope, 0); ok {
					g.reportKey(call, sk, lit)
					break
				}
			}
			break
		}
		return true
	})
}

func (g *goCheck) isSink(call *ast.CallExpr, sk keySink) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != sk.name {
		return false
	}
	id, isIdent := sel.X.(*ast.Ident)
	if sk.method {
		if isIdent {
			if _, pkg := g.imports[id.Name]; pkg {
				return false
			}
		}
		if len(sk.paths) == 0 {
			return true
		}
		for _, p := range g.imports {
			for _, q := range sk.paths {
				if p == q {
					return true
				}
			}
		}
		return false
	}
	if !isIdent {
		return false
	}
	for _, q := range sk.paths {
		if g.imports[id.Name] == q {
			return true
		}
	}
	return false
}

// keyfuncResults returns the first results of the return statements of a key function: a
// function literal (whose names are the enclosing function's), or a function declared in the
// file, with its own locals.
func (g *goCheck) keyfuncResults(e ast.Expr) ([]ast.Expr, map[string][]keyAssign) {
	var body *ast.BlockStmt
	var own map[string][]keyAssign
	switch e := e.(type) {
	case *ast.FuncLit:
		body = e.Body
	case *ast.Ident:
		for _, d := range g.file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == e.Name && fd.Body != nil {
				body, own = fd.Body, funcAssignments(fd)
			}
		}
	}
	if body == nil {
		return nil, nil
	}
	var out []ast.Expr
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // its returns are its own
		case *ast.ReturnStmt:
			if len(n.Results) > 0 {
				out = append(out, n.Results[0])
			}
		}
		return true
	})
	return out, own
}

// keyAssign is one value given to a local name; konst marks a constant.
type keyAssign struct {
	value ast.Expr // nil: a value the analysis cannot see (one of several results)
	call  *ast.CallExpr
	index int
	konst bool
}

// funcAssignments is localAssignments of fd's body, with each parameter given a value the
// analysis cannot see: parameters hold what the caller passes, not a literal here.
func funcAssignments(fd *ast.FuncDecl) map[string][]keyAssign {
	assigns := localAssignments(fd.Body)
	for _, fl := range fd.Type.Params.List {
		for _, n := range fl.Names {
			assigns[n.Name] = append(assigns[n.Name], keyAssign{})
		}
	}
	return assigns
}

// localAssignments collects, per local name, every value assigned to it in body.
func localAssignments(body *ast.BlockStmt) map[string][]keyAssign {
	out := map[string][]keyAssign{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				id, ok := lhs.(*ast.Ident)
				if !ok || id.Name == "_" {
					continue
				}
				a := keyAssign{index: i}
				switch {
				case n.Tok != token.ASSIGN && n.Tok != token.DEFINE:
					a.value = nil // k += ...: not a plain literal
				case len(n.Rhs) == len(n.Lhs):
					a.value = n.Rhs[i]
				case len(n.Rhs) == 1:
					a.call, _ = n.Rhs[0].(*ast.CallExpr)
				}
				out[id.Name] = append(out[id.Name], a)
			}
		case *ast.CallExpr:
			// flag.StringVar(&k, name, default, usage) assigns its default to k.
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "StringVar" && text(sel.X) == "flag" && len(n.Args) >= 3 {
				if u, ok := n.Args[0].(*ast.UnaryExpr); ok && u.Op == token.AND {
					if id, ok := u.X.(*ast.Ident); ok {
						out[id.Name] = append(out[id.Name], keyAssign{value: n.Args[2]})
					}
				}
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{n.Key, n.Value} {
				if id, ok := e.(*ast.Ident); ok {
					out[id.Name] = append(out[id.Name], keyAssign{})
				}
			}
		case *ast.GenDecl:
			for _, sp := range n.Specs {
				vs, ok := sp.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for i, name := range vs.Names {
					if a, ok := specAssign(vs, i, n.Tok); ok {
						out[name.Name] = append(out[name.Name], a)
					}
					// var k T: the zero value, no credential.
				}
			}
		}
		return true
	})
	return out
}

// specAssign is the value the i-th name of a var or const spec is declared with: its own value,
// or one of the several results of a call; false when it is declared without a value.
func specAssign(vs *ast.ValueSpec, i int, tok token.Token) (keyAssign, bool) {
	switch {
	case len(vs.Values) == len(vs.Names):
		return keyAssign{value: vs.Values[i], konst: tok == token.CONST}, true
	case len(vs.Values) == 1:
		c, _ := vs.Values[0].(*ast.CallExpr)
		return keyAssign{call: c, index: i}, true
	}
	return keyAssign{}, false
}

// literalKey reports whether e is a non-empty string literal, a conversion of one, or a name
// whose every value is one (a literal fallback of an environment read counts).
func (g *goCheck) literalKey(e ast.Expr, local map[string][]keyAssign, depth int) (keyLiteral, bool) {
	if depth > 4 {
		return keyLiteral{}, false
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return g.literalKey(e.X, local, depth+1)
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return keyLiteral{}, false
		}
		v, err := strconv.Unquote(e.Value)
		if err != nil || v == "" {
			return keyLiteral{}, false
		}
		return keyLiteral{value: v, line: g.line(e)}, true
	case *ast.CallExpr:
		if len(e.Args) == 1 && isConversion(e.Fun) {
			return g.literalKey(e.Args[0], local, depth+1)
		}
		if lit, ok := g.fallbackCall(e, local, depth); ok {
			return lit, true
		}
		if g.pkgCall(e, "flag", "String") && len(e.Args) >= 2 {
			if lit, ok := g.literalKey(e.Args[1], local, depth+1); ok {
				lit.via = "default of the flag " + text(e.Args[0])
				return lit, true
			}
		}
	case *ast.StarExpr:
		return g.literalKey(e.X, local, depth+1) // *flag.String(...)
	case *ast.Ident:
		if as, ok := local[e.Name]; ok {
			return g.namedLiteral(e.Name, as, local, depth)
		}
		return g.packageLiteral(e.Name, depth)
	}
	return keyLiteral{}, false
}

// namedLiteral resolves a name from its assignments: a literal when every assignment is one, or
// when the others only read the environment (the literal is then the fallback).
func (g *goCheck) namedLiteral(name string, as []keyAssign, local map[string][]keyAssign, depth int) (keyLiteral, bool) {
	var found keyLiteral
	have, fallback := false, false
	for _, a := range as {
		if a.value == nil {
			if a.call != nil && g.envRead(a.call) {
				fallback = true
				continue
			}
			return keyLiteral{}, false
		}
		if call, ok := unconvert(a.value).(*ast.CallExpr); ok && g.envRead(call) {
			fallback = true
			continue
		}
		if lit, ok := a.value.(*ast.BasicLit); ok && lit.Kind == token.STRING && lit.Value == `""` {
			continue // an empty start, filled in later
		}
		lit, ok := g.literalKey(a.value, local, depth+1)
		if !ok {
			return keyLiteral{}, false
		}
		if !have {
			found, have = lit, true
			kind := "variable"
			if a.konst {
				kind = "constant"
			}
			if found.via == "" {
				found.via = kind + " " + name
			}
		}
	}
	if !have {
		return keyLiteral{}, false
	}
	if fallback {
		found.via = "fallback of variable " + name + " when the environment does not set it"
	}
	return found, true
}

// fallbackCall recognises `cmp.Or(os.Getenv("X"), "literal")` and helpers such as
// `getEnv("X", "literal")`: a literal given as the default of an environment read.
func (g *goCheck) fallbackCall(call *ast.CallExpr, local map[string][]keyAssign, depth int) (keyLiteral, bool) {
	isOr := g.pkgCall(call, "cmp", "Or")
	if !isOr {
		name := ""
		switch f := call.Fun.(type) {
		case *ast.Ident:
			name = f.Name
		case *ast.SelectorExpr:
			name = f.Sel.Name
		}
		l := strings.ToLower(name)
		if !strings.Contains(l, "env") && !strings.Contains(l, "default") && !strings.Contains(l, "fallback") {
			return keyLiteral{}, false
		}
	}
	start := 1
	if isOr {
		start = 0
	}
	for i := start; i < len(call.Args); i++ {
		if lit, ok := g.literalKey(call.Args[i], local, depth+1); ok {
			lit.via = "fallback of " + text(call.Fun) + " when the environment does not set it"
			return lit, true
		}
	}
	return keyLiteral{}, false
}

// envRead reports whether call reads the environment (os.Getenv, os.LookupEnv, syscall.Getenv).
func (g *goCheck) envRead(call *ast.CallExpr) bool {
	return g.pkgCall(call, "os", "Getenv", "LookupEnv") || g.pkgCall(call, "syscall", "Getenv")
}

// unconvert strips conversions and parentheses: []byte(os.Getenv("K")) -> os.Getenv("K").
func unconvert(e ast.Expr) ast.Expr {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.CallExpr:
			if len(x.Args) != 1 || !isConversion(x.Fun) {
				return e
			}
			e = x.Args[0]
		default:
			return e
		}
	}
}

// isConversion reports whether f is []byte, string or []rune used as a conversion.
func isConversion(f ast.Expr) bool {
	switch f := f.(type) {
	case *ast.ArrayType:
		id, ok := f.Elt.(*ast.Ident)
		return ok && f.Len == nil && (id.Name == "byte" || id.Name == "rune" || id.Name == "uint8")
	case *ast.Ident:
		return f.Name == "string"
	case *ast.ParenExpr:
		return isConversion(f.X)
	}
	return false
}

// packageValues returns the values given to a package-level name declared in the file: its
// initialiser, and every assignment to it in the file's functions. Nil when the name is not
// declared at package level here, or is declared without a value.
func (g *goCheck) packageValues(name string) []keyAssign {
	var out []keyAssign
	declared := false
	for _, d := range g.file.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || (gd.Tok != token.CONST && gd.Tok != token.VAR) {
			continue
		}
		for _, sp := range gd.Specs {
			vs := sp.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if n.Name != name {
					continue
				}
				declared = true
				// Declared without a value (the zero keyAssign): set elsewhere.
				a, _ := specAssign(vs, i, gd.Tok)
				out = append(out, a)
			}
		}
	}
	if !declared {
		return nil
	}
	return append(out, g.funcAssigns(name)...)
}

// funcAssigns returns what the file's functions assign to name (init reading the environment,
// say). The file's functions are read once, on first use.
func (g *goCheck) funcAssigns(name string) []keyAssign {
	if g.assigns == nil {
		g.assigns = map[string][]keyAssign{}
		for _, d := range g.file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				for n, as := range localAssignments(fd.Body) {
					g.assigns[n] = append(g.assigns[n], as...)
				}
			}
		}
	}
	return g.assigns[name]
}

// packageLiteral resolves a package-level name declared in this file or in another file of the
// same package that the change holds whole. An assignment to it in another file's functions is
// not followed: the name then counts as set elsewhere.
func (g *goCheck) packageLiteral(name string, depth int) (keyLiteral, bool) {
	files := append([]*goCheck{g}, g.siblings()...)
	for _, o := range files {
		as := o.packageValues(name)
		if len(as) == 0 {
			continue
		}
		for _, p := range files {
			if p != o && len(p.funcAssigns(name)) > 0 {
				return keyLiteral{}, false
			}
		}
		lit, ok := o.namedLiteral(name, as, nil, depth)
		if ok && o != g && lit.path == "" {
			lit.path = o.f.Path
		}
		return lit, ok
	}
	return keyLiteral{}, false
}

// siblings returns checks of the other non-test Go files of the same package (directory and
// package name) whose head content the change holds, computed on first use.
func (g *goCheck) siblings() []*goCheck {
	if g.sibs != nil {
		return *g.sibs
	}
	out := []*goCheck{}
	g.sibs = &out
	dir := path.Dir(g.f.Path)
	for _, f := range g.s.Change.Files {
		if f == g.f || f.Status == StatusDeleted || path.Dir(f.Path) != dir || strings.HasSuffix(f.Path, "_test.go") {
			continue
		}
		fset, file, ok := g.s.Go(f)
		if !ok || file.Name.Name != g.file.Name.Name {
			continue
		}
		o := &goCheck{s: g.s, f: f, fset: fset, file: file, imports: importNames(file), consts: map[string]bool{}}
		o.sibs = &[]*goCheck{} // a sibling resolves names in its own file only
		out = append(out, o)
	}
	return out
}

func (g *goCheck) reportKey(call *ast.CallExpr, sk keySink, lit keyLiteral) {
	line := g.line(call)
	litFile, where := g.f, fmt.Sprintf("line %d", lit.line)
	if lit.path != "" {
		litFile, where = g.s.Change.File(lit.path), fmt.Sprintf("%s:%d", lit.path, lit.line)
	}
	if !g.f.IsAdded(line) && (litFile == nil || !litFile.IsAdded(lit.line)) {
		return
	}
	sev := toulmin.SeverityHigh
	if sk.critical {
		sev = toulmin.SeverityCritical
	}
	from := fmt.Sprintf("the literal %s on %s", redact(lit.value), where)
	if lit.via != "" {
		from += " (" + lit.via + ")"
	}
	g.s.ReportSeverity(RuleKeyByUse, sev, g.f.Path, line, fmt.Sprintf("%s is %s: a hard-coded credential", sk.what, from))
}
