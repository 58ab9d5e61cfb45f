package evidence

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/scan"
	"golang.org/x/tools/go/analysis"
)

// summaryAnalyzer records, for each function of a package, what protects its sensitive calls:
// the checks it makes (guard calls, early-exit ifs), the calls they protect (files, commands,
// URLs, SQL, HTML, redirects), how values flow between its variables (by name, so that base and
// head can be compared), its http.Clients' redirect policy and its lock order. Run compares the
// summaries of base and head (weakened.go). It reports nothing itself.
var summaryAnalyzer = &analysis.Analyzer{
	Name:       "protections",
	Doc:        "summarise each function's checks, sensitive calls, settings and lock order for the base/head comparison",
	Requires:   []*analysis.Analyzer{lockAnalyzer},
	Run:        runSummary,
	ResultType: reflect.TypeOf((*pkgSummary)(nil)),
}

// pkgSummary is one package's summaries, keyed by "importpath.FuncName".
type pkgSummary struct {
	funcs map[string]*funcSummary
}

// Sink kinds: what a sensitive call does with its input.
const (
	sinkFile     = "file"
	sinkExec     = "exec"
	sinkURL      = "url"
	sinkSQL      = "sql"
	sinkHTML     = "html"
	sinkRedirect = "redirect"
)

// sinkRisk names the weakness a missing check opens at each kind of sink.
var sinkRisk = map[string]string{
	sinkFile:     "path traversal, CWE-22",
	sinkExec:     "command injection, CWE-78",
	sinkURL:      "server-side request forgery, CWE-918",
	sinkSQL:      "SQL injection, CWE-89",
	sinkHTML:     "cross-site scripting, CWE-79",
	sinkRedirect: "open redirect, CWE-601",
}

type funcSummary struct {
	key, name string
	pos       token.Position
	params    []string
	variadic  bool
	// assign maps a variable to the variables its value is computed from; multi are the
	// multi-value assignments (u, err := url.Parse(s)), whose variables are siblings; value says
	// which variables hold plain values (strings, numbers, bytes, URLs, IPs, errors) rather than
	// handles (requests, writers, contexts, receivers), errs which hold errors.
	//
	// Only flows that keep the value count (a field, a concatenation, strings, path, url, strconv,
	// the project's own helpers): the result of an opaque call (an archive opened from a path, a
	// file read from a name, a row queried by an id) is not what was passed to it.
	assign      map[string][]string
	multi       []multiAssign
	value, errs map[string]bool
	guards      []guardUse
	sinks       []sinkUse
	calls       []callUse
	client      []clientSetting
	locks       []lockOrder
}

// guardUse is a check: a call to a sanitiser or validator, or an if that leaves on failure.
// multiAssign is one assignment of several variables from one call, at a file offset.
type multiAssign struct {
	off   int
	names []string
}

type guardUse struct {
	id    string // "call:path/filepath.Clean", "if:!filepath.IsLocal(name)"
	desc  string // as the message names it
	calls []string
	kinds map[string]bool // the sink kinds it protects; nil for any
	// strong: a known sanitiser or validator, or an if whose condition calls one.
	strong bool
	vars   []string
	pos    token.Position
}

type sinkUse struct {
	kind, callee string
	vars         []string
	constant     bool
	pos, end     token.Position
	// at and atFunc place a call through a helper at the sensitive call inside the helper.
	at     token.Position
	atFunc string
}

type callUse struct {
	callee   string // the summary key of the called function
	args     [][]string
	pos, end token.Position
}

// clientSetting is an http.Client literal ("client") or the redirect policy set on one
// ("CheckRedirect").
type clientSetting struct {
	field string
	pos   token.Position
}

type lockOrder struct {
	field, mutex string
	earlyRead    token.Position // zero when none
	lockedRead   bool
}

func runSummary(pass *analysis.Pass) (any, error) {
	out := &pkgSummary{funcs: map[string]*funcSummary{}}
	locks := pass.ResultOf[lockAnalyzer].(*lockResult)
	module := ""
	if pass.Module != nil {
		module = pass.Module.Path
	}
	for _, f := range nonTestFiles(pass) {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Body == nil {
					continue
				}
				s := summarise(pass, module, FuncName(d), d.Type, d.Body)
				s.pos = pass.Fset.Position(d.Pos())
				for _, o := range locks.orders[s.name] {
					lo := lockOrder{field: o.Field, mutex: o.Mutex, lockedRead: o.LockedRead}
					if o.EarlyRead.IsValid() {
						lo.earlyRead = pass.Fset.Position(o.EarlyRead)
					}
					s.locks = append(s.locks, lo)
				}
				if _, dup := out.funcs[s.key]; !dup {
					out.funcs[s.key] = s
				}
			case *ast.GenDecl:
				summariseGen(pass, module, d, out)
			}
		}
	}
	return out, nil
}

// summariseGen records package-level variables initialised with an http.Client as
// pseudo-functions "var name".
func summariseGen(pass *analysis.Pass, module string, d *ast.GenDecl, out *pkgSummary) {
	for _, spec := range d.Specs {
		spec, ok := spec.(*ast.ValueSpec)
		if !ok || d.Tok != token.VAR || len(spec.Values) == 0 {
			continue
		}
		for _, name := range spec.Names {
			s := summarise(pass, module, "var "+name.Name, nil, spec)
			s.pos = pass.Fset.Position(spec.Pos())
			if len(s.client) > 0 {
				out.funcs[s.key] = s
			}
		}
	}
}

type summariser struct {
	pass   *analysis.Pass
	info   *types.Info
	module string
	s      *funcSummary
	flow   *constFlow
}

func summarise(pass *analysis.Pass, module, name string, ft *ast.FuncType, body ast.Node) *funcSummary {
	s := &funcSummary{
		key: pass.Pkg.Path() + "." + name, name: name,
		assign: map[string][]string{}, value: map[string]bool{}, errs: map[string]bool{},
	}
	if ft != nil && ft.Params != nil {
		if n := len(ft.Params.List); n > 0 {
			_, s.variadic = ft.Params.List[n-1].Type.(*ast.Ellipsis)
		}
		for _, f := range ft.Params.List {
			if len(f.Names) == 0 {
				s.params = append(s.params, "_")
			}
			for _, n := range f.Names {
				s.params = append(s.params, n.Name)
				if v, ok := pass.TypesInfo.Defs[n].(*types.Var); ok {
					s.value[n.Name] = isValueType(v.Type())
				}
			}
		}
	}
	x := &summariser{pass: pass, info: pass.TypesInfo, module: module, s: s, flow: newConstFlow(pass.TypesInfo, body)}
	ast.Inspect(body, x.visit)
	return s
}

func (x *summariser) position(p token.Pos) token.Position { return x.pass.Fset.Position(p) }

// vars names the variables an expression reads, and the fields of local variables it reads as
// paths ("req.subDir", with the field's type), so that a check of one field is told from a use of
// another (package names and package-level functions left out).
func (x *summariser) vars(e ast.Node) []string {
	var out []string
	seen := map[string]bool{}
	ast.Inspect(e, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if path, t := x.fieldPath(sel); path != "" && !seen[path] {
				seen[path] = true
				out = append(out, path)
				x.s.value[path] = x.s.value[path] || isValueType(t)
			}
			ast.Inspect(sel.X, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok {
					x.addVar(id, &out, seen)
				}
				return true
			})
			return false
		}
		if id, ok := n.(*ast.Ident); ok {
			x.addVar(id, &out, seen)
		}
		return true
	})
	return out
}

// fieldPath names a chain of field selections on a variable ("req.subDir", "t.URL"), with its
// type; "" for other selectors (methods, package members).
func (x *summariser) fieldPath(sel *ast.SelectorExpr) (string, types.Type) {
	s, ok := x.info.Selections[sel]
	if !ok || s.Kind() != types.FieldVal {
		return "", nil
	}
	switch base := ast.Unparen(sel.X).(type) {
	case *ast.Ident:
		if v, ok := x.info.ObjectOf(base).(*types.Var); !ok || v.IsField() {
			return "", nil
		}
		return base.Name + "." + sel.Sel.Name, s.Type()
	case *ast.SelectorExpr:
		if p, _ := x.fieldPath(base); p != "" {
			return p + "." + sel.Sel.Name, s.Type()
		}
	}
	return "", nil
}

// transformers are the packages whose functions compute a value from their arguments (the
// result is the argument, reshaped): a flow through them keeps what a check vetted.
var transformers = map[string]bool{"strings": true, "bytes": true, "path": true, "path/filepath": true, "net/url": true,
	"strconv": true, "fmt": true, "html": true, "unicode/utf8": true, "net": true, "net/netip": true, "encoding/base64": true, "encoding/hex": true}

// transparent reports whether an assigned value is its sources, reshaped: not the result of a
// library call whose output is not its input (opening an archive from a path, querying with an
// id). The project's own helpers are taken to compute their result from their arguments.
func (x *summariser) transparent(e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return true
	}
	if tv, ok := x.info.Types[call.Fun]; ok && tv.IsType() {
		return true // a conversion
	}
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if _, ok := x.info.Uses[id].(*types.Builtin); ok {
			return true // append, min, max, ...
		}
	}
	fn := calleeFunc(x.info, call)
	if fn == nil {
		return false
	}
	pkg := funcPkgPath(fn)
	if n := recvNamed(fn); n != nil && n.Obj().Pkg() != nil {
		pkg = n.Obj().Pkg().Path()
	}
	return transformers[pkg] || x.userCode(pkg)
}

func (x *summariser) addVar(id *ast.Ident, out *[]string, seen map[string]bool) {
	v, ok := x.info.ObjectOf(id).(*types.Var)
	if !ok || v.IsField() || seen[id.Name] {
		return
	}
	seen[id.Name] = true
	*out = append(*out, id.Name)
	x.s.value[id.Name] = x.s.value[id.Name] || isValueType(v.Type())
	x.s.errs[id.Name] = x.s.errs[id.Name] || types.Identical(v.Type(), types.Universe.Lookup("error").Type())
}

// isValueType reports whether a variable of type t holds data that a check can vet (a string,
// a number, bytes, a URL, an IP address, an error) rather than a handle.
func isValueType(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil {
		switch n.Obj().Pkg().Path() + "." + n.Obj().Name() {
		case "net/url.URL", "net.IP", "net/netip.Addr", "net/netip.AddrPort", "net/netip.Prefix":
			return true
		}
	}
	if types.Identical(t, types.Universe.Lookup("error").Type()) {
		return true
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&(types.IsString|types.IsNumeric|types.IsBoolean) != 0
	case *types.Slice:
		b, ok := u.Elem().Underlying().(*types.Basic)
		return ok && b.Info()&(types.IsString|types.IsInteger) != 0
	}
	return false
}

// rootName is the variable an assignment's target writes: x for x, x.f, x[i], *x.
func rootName(e ast.Expr) string {
	for {
		switch t := ast.Unparen(e).(type) {
		case *ast.Ident:
			return t.Name
		case *ast.SelectorExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.StarExpr:
			e = t.X
		default:
			return ""
		}
	}
}

// target names what an assignment writes: the field path (req.subDir) for a field of a local
// variable, else the variable (x for x, x[i], *x).
func (x *summariser) target(l ast.Expr) string {
	if sel, ok := ast.Unparen(l).(*ast.SelectorExpr); ok {
		if path, t := x.fieldPath(sel); path != "" {
			x.s.value[path] = x.s.value[path] || isValueType(t)
			// The variable holds what its field is given.
			root := rootName(l)
			x.s.assign[root] = append(x.s.assign[root], path)
			return path
		}
	}
	return rootName(l)
}

func (x *summariser) edge(to string, from []string, transparent bool) {
	if transparent {
		x.s.assign[to] = append(x.s.assign[to], from...)
	}
}

func (x *summariser) flowTo(at token.Pos, lhs []ast.Expr, rhs []ast.Expr) {
	if len(lhs) == len(rhs) {
		for i, l := range lhs {
			if n := x.target(l); n != "" && n != "_" {
				x.edge(n, x.vars(rhs[i]), x.transparent(rhs[i]))
			}
		}
		return
	}
	if len(rhs) != 1 {
		return
	}
	from := x.vars(rhs[0])
	direct := x.transparent(rhs[0])
	var names []string
	for _, l := range lhs {
		if n := x.target(l); n != "" && n != "_" {
			names = append(names, n)
			x.edge(n, from, direct)
		}
	}
	if len(names) > 1 {
		x.s.multi = append(x.s.multi, multiAssign{off: x.position(at).Offset, names: names})
	}
}

func (x *summariser) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.FuncLit:
		if n.Type.Params != nil {
			for _, f := range n.Type.Params.List {
				for _, name := range f.Names {
					if v, ok := x.info.Defs[name].(*types.Var); ok {
						x.s.value[name.Name] = isValueType(v.Type())
					}
				}
			}
		}
	case *ast.AssignStmt:
		x.flowTo(n.Pos(), n.Lhs, n.Rhs)
		x.clientAssign(n)
	case *ast.ValueSpec:
		lhs := make([]ast.Expr, len(n.Names))
		for i, id := range n.Names {
			lhs[i] = id
			if v, ok := x.info.Defs[id].(*types.Var); ok {
				x.s.value[id.Name] = isValueType(v.Type())
			}
		}
		x.flowTo(n.Pos(), lhs, n.Values)
	case *ast.RangeStmt:
		for _, e := range []ast.Expr{n.Key, n.Value} {
			if e != nil {
				x.flowTo(n.Pos(), []ast.Expr{e}, []ast.Expr{n.X})
			}
		}
	case *ast.IfStmt:
		if exits(n.Body) {
			x.ifGuard(n)
		}
	case *ast.CallExpr:
		x.call(n)
	case *ast.CompositeLit:
		x.clientLiteral(n)
	}
	return true
}

// exits reports whether a block ends by leaving: return, break, continue, goto, panic, or a call
// such as log.Fatal or t.Fatal.
func exits(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	switch last := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt, *ast.BranchStmt:
		return true
	case *ast.ExprStmt:
		if call, ok := last.X.(*ast.CallExpr); ok {
			name := ""
			switch f := ast.Unparen(call.Fun).(type) {
			case *ast.Ident:
				name = f.Name
			case *ast.SelectorExpr:
				name = f.Sel.Name
			}
			return name == "panic" || strings.HasPrefix(name, "Fatal") || name == "Exit"
		}
	}
	return false
}

func (x *summariser) ifGuard(n *ast.IfStmt) {
	g := guardUse{id: "if:" + types.ExprString(n.Cond), desc: "the check `" + scan.Clip(types.ExprString(n.Cond), 80) + "`",
		vars: x.vars(n.Cond), pos: x.position(n.Cond.Pos())}
	ast.Inspect(n.Cond, func(m ast.Node) bool {
		if call, ok := m.(*ast.CallExpr); ok {
			if fn := calleeFunc(x.info, call); fn != nil {
				if _, ok := x.guardKinds(fn); ok {
					g.calls = append(g.calls, "call:"+fn.FullName())
				}
			}
		}
		return true
	})
	g.strong = len(g.calls) > 0
	x.s.guards = append(x.s.guards, g)
}

func guardName(name string) bool {
	lower := strings.ToLower(name)
	for _, p := range guardPrefixes {
		if !strings.HasPrefix(lower, p) {
			continue
		}
		if len(name) == len(p) {
			return true
		}
		c := name[len(p)]
		if c >= 'A' && c <= 'Z' || c == '_' {
			return true
		}
	}
	return false
}

func kinds(ks ...string) map[string]bool {
	m := map[string]bool{}
	for _, k := range ks {
		m[k] = true
	}
	return m
}

// guardKinds says whether fn is a sanitiser, validator or guard, and which sinks it protects
// (nil: any).
func (x *summariser) guardKinds(fn *types.Func) (map[string]bool, bool) {
	pkg := funcPkgPath(fn)
	name := fn.Name()
	recv := ""
	if n := recvNamed(fn); n != nil {
		recv = n.Obj().Name()
	}
	if ks, ok := sanitiserOf(pkg, recv, name); ok {
		return ks, true
	}
	if guardName(name) && x.userCode(pkg) {
		return nil, true
	}
	return nil, false
}

// userCode reports whether a package is the project's (its module's, or outside the standard
// library).
func (x *summariser) userCode(pkg string) bool {
	if pkg == "" {
		return false
	}
	if x.module != "" && (pkg == x.module || strings.HasPrefix(pkg, x.module+"/")) {
		return true
	}
	first, _, _ := strings.Cut(pkg, "/")
	return strings.Contains(first, ".")
}

// sinkOf says whether a call is sensitive to its input, of which kind, and which of its
// arguments carry that input.
func (x *summariser) sinkOf(call *ast.CallExpr, fn *types.Func) (string, []ast.Expr) {
	args := call.Args
	from := func(i int) []ast.Expr {
		if i < len(args) {
			return args[i:]
		}
		return nil
	}
	at := func(i int) []ast.Expr {
		if i < len(args) {
			return args[i : i+1]
		}
		return nil
	}
	if fn == nil {
		// Conversions to html/template's trusted types.
		if tv, ok := x.info.Types[call.Fun]; ok && tv.IsType() {
			if n, ok := tv.Type.(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "html/template" {
				return sinkHTML, args
			}
		}
		return "", nil
	}
	for _, k := range goSinks {
		if k.Recv == "" && !isPkgFunc(fn, k.Pkg, k.Names...) || k.Recv != "" && !isMethodOf(fn, k.Pkg, k.Recv, k.Names...) {
			continue
		}
		if k.ToResponse && (len(args) == 0 || !isResponseWriter(x.info.TypeOf(args[0]))) {
			break
		}
		if k.Rest {
			return k.Kind, from(k.Arg)
		}
		return k.Kind, at(k.Arg)
	}
	if i := sqlQueryArg(fn); i >= 0 {
		return sinkSQL, at(i)
	}
	return "", nil
}

func isResponseWriter(t types.Type) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "net/http" && n.Obj().Name() == "ResponseWriter"
}

// summaryKey is the summary key of a function of the loaded code, "" for others.
func summaryKey(fn *types.Func) string {
	if fn == nil || fn.Pkg() == nil {
		return ""
	}
	if n := recvNamed(fn); n != nil {
		if _, iface := n.Underlying().(*types.Interface); iface {
			return ""
		}
		return fn.Pkg().Path() + "." + n.Obj().Name() + "." + fn.Name()
	}
	return fn.Pkg().Path() + "." + fn.Name()
}

func (x *summariser) call(call *ast.CallExpr) {
	fn := calleeFunc(x.info, call)
	if fn != nil {
		fn = fn.Origin()
	}
	pos, end := x.position(call.Pos()), x.position(call.End())
	if fn != nil {
		if ks, ok := x.guardKinds(fn); ok {
			var vars []string
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && recvNamed(fn) != nil {
				vars = x.vars(sel.X)
			}
			for _, a := range call.Args {
				vars = append(vars, x.vars(a)...)
			}
			x.s.guards = append(x.s.guards, guardUse{id: "call:" + fn.FullName(), desc: shortFunc(fn), calls: []string{"call:" + fn.FullName()},
				kinds: ks, strong: true, vars: vars, pos: pos})
		}
	}
	x.optionsEnd(call, fn)
	if kind, args := x.sinkOf(call, fn); kind != "" {
		callee := "the conversion " + types.ExprString(call.Fun)
		if fn != nil {
			callee = shortFunc(fn)
		}
		su := sinkUse{kind: kind, callee: callee, pos: pos, end: end, constant: true}
		for _, a := range args {
			su.vars = append(su.vars, x.vars(a)...)
			if tv, ok := x.info.Types[a]; !ok || tv.Value == nil {
				su.constant = false
			}
		}
		x.s.sinks = append(x.s.sinks, su)
	}
	if key := summaryKey(fn); key != "" && x.userCode(funcPkgPath(fn)) {
		cu := callUse{callee: key, pos: pos, end: end}
		for _, a := range call.Args {
			cu.args = append(cu.args, x.vars(a))
		}
		x.s.calls = append(x.s.calls, cu)
	}
}

// optionsEnd records the end-of-options marker "--" given to a command (or appended to its
// arguments) before values: it keeps a value that starts with "-" from being read as an option.
func (x *summariser) optionsEnd(call *ast.CallExpr, fn *types.Func) {
	args := call.Args
	isAppend := false
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if b, ok := x.info.Uses[id].(*types.Builtin); ok && b.Name() == "append" {
			isAppend = true
		}
	}
	if !isAppend && !isPkgFunc(fn, "os/exec", "Command", "CommandContext") {
		return
	}
	for i, a := range args {
		tv, ok := x.info.Types[a]
		if !ok || tv.Value == nil || tv.Value.ExactString() != `"--"` || i+1 >= len(args) {
			continue
		}
		var vars []string
		for _, rest := range args[i+1:] {
			vars = append(vars, x.vars(rest)...)
		}
		if isAppend {
			vars = append(vars, x.vars(args[0])...)
		}
		x.s.guards = append(x.s.guards, guardUse{id: "arg:--", desc: "the end-of-options marker `--`", kinds: kinds(sinkExec),
			strong: true, vars: vars, pos: x.position(a.Pos())})
		return
	}
}

func isHTTPClient(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "net/http" && n.Obj().Name() == "Client"
}

func (x *summariser) clientLiteral(lit *ast.CompositeLit) {
	if isHTTPClient(x.info.TypeOf(lit)) {
		x.s.client = append(x.s.client, clientSetting{field: "client", pos: x.position(lit.Pos())})
		for _, el := range lit.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "CheckRedirect" {
					x.s.client = append(x.s.client, clientSetting{field: "CheckRedirect", pos: x.position(kv.Pos())})
				}
			}
		}
	}
}

func (x *summariser) clientAssign(n *ast.AssignStmt) {
	if len(n.Lhs) != len(n.Rhs) {
		return
	}
	for _, l := range n.Lhs {
		sel, ok := l.(*ast.SelectorExpr)
		if ok && isHTTPClient(x.info.TypeOf(sel.X)) && sel.Sel.Name == "CheckRedirect" {
			x.s.client = append(x.s.client, clientSetting{field: "CheckRedirect", pos: x.position(n.Pos())})
		}
	}
}
