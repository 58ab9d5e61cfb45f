package evidence

import (
	"fmt"
	"go/ast"
	"go/types"
	"runtime/debug"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"
	"golang.org/x/tools/go/ssa"
)

// ssaOfTyped stands in for buildssa in a package that does not type-check in full (a dependency
// missing from the module cache): go/ssa panics on an expression of invalid type, which would
// cost every SSA-based check (bodyclose, sqlclosecheck, rowserrcheck, noctx, nilaway) the whole
// package. It builds the SSA of the functions that type-check, or that do once their ill-typed
// call statements using none of their variables are left out (see withoutInvalidCalls), and
// builds the others as declarations only (no body: nothing is reported in them), as the cgo files' functions that use
// C names are. Package-level initialisers of invalid type are left out likewise.
func ssaOfTyped(pass *analysis.Pass) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("SSA of the functions that type-check: panic: %v (%s)", r, firstFrame(debug.Stack()))
		}
	}()
	info := *pass.TypesInfo
	info.InitOrder = nil
	for _, init := range pass.TypesInfo.InitOrder {
		if !hasInvalid(&info, init.Rhs) && !invalidType(init.Rhs, pass.TypesInfo) {
			info.InitOrder = append(info.InitOrder, init)
		}
	}
	files := make([]*ast.File, len(pass.Files))
	for i, f := range pass.Files {
		files[i] = typedBodiesOnly(f, &info)
	}
	prog := ssa.NewProgram(pass.Fset, ssa.BuilderMode(0))
	if cfgs, ok := pass.ResultOf[ctrlflow.Analyzer].(*ctrlflow.CFGs); ok {
		prog.SetNoReturn(cfgs.NoReturn)
	}
	for _, p := range pass.Pkg.Imports() {
		prog.CreatePackage(p, nil, nil, true)
	}
	ssapkg := prog.CreatePackage(pass.Pkg, files, &info, false)
	ssapkg.Build()
	var funcs []*ssa.Function
	var addAnons func(f *ssa.Function)
	addAnons = func(f *ssa.Function) {
		funcs = append(funcs, f)
		for _, anon := range f.AnonFuncs {
			addAnons(anon)
		}
	}
	for _, f := range files {
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
				if sf := prog.FuncValue(fn); sf != nil {
					addAnons(sf)
				}
			}
		}
	}
	return &buildssa.SSA{Pkg: ssapkg, SrcFuncs: funcs}, nil
}

// typedBodiesOnly returns f, or a copy of it whose functions that do not type-check in full (in
// their signature or body) have no body.
func typedBodiesOnly(f *ast.File, info *types.Info) *ast.File {
	var decls []ast.Decl
	changed := false
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if ok && fd.Body != nil && (hasInvalid(info, fd) || invalidType(fd.Name, info)) {
			stub := *fd
			stub.Body = nil
			if !hasInvalid(info, fd.Type) && !invalidType(fd.Name, info) && (fd.Recv == nil || !hasInvalid(info, fd.Recv)) {
				if body := withoutInvalidCalls(fd.Body, info); !hasInvalid(info, body) {
					stub.Body = body
				}
			}
			d, changed = &stub, true
		}
		decls = append(decls, d)
	}
	if !changed {
		return f
	}
	cp := *f
	cp.Decls = decls
	return &cp
}

// hasInvalid reports whether an expression under n has an invalid type, or an identifier under
// n resolves to nothing (a name of a package that could not be imported).
func hasInvalid(info *types.Info, n ast.Node) bool {
	bad := false
	ast.Inspect(n, func(n ast.Node) bool {
		if bad {
			return false
		}
		switch e := n.(type) {
		case *ast.Ident:
			_, def := info.Defs[e]
			_, use := info.Uses[e]
			bad = e.Name != "_" && !def && !use || invalidType(e, info)
		case ast.Expr:
			if tv, ok := info.Types[e]; ok && (tv.Type == nil || isInvalidType(tv.Type)) {
				bad = true
			}
		}
		return !bad
	})
	return bad
}

// invalidType reports whether the object or type of e involves an invalid type.
func invalidType(e ast.Expr, info *types.Info) bool {
	if id, ok := e.(*ast.Ident); ok {
		switch obj := info.ObjectOf(id).(type) {
		case nil, *types.PkgName, *types.Label, *types.Builtin:
			return false // no object, or one whose type is invalid by definition
		default:
			return isInvalidType(obj.Type())
		}
	}
	t := info.TypeOf(e)
	return t != nil && isInvalidType(t)
}

func isInvalidType(t types.Type) bool {
	return t != nil && strings.Contains(types.TypeString(t, nil), "invalid type")
}

// withoutInvalidCalls is a copy of body whose call statements (a call, a defer or a go statement
// whose result is dropped) that do not type-check and use none of the function's own variables are
// left out: a metrics or logging call into a module missing from the cache declares nothing and
// can neither close nor keep the function's values, so the rest of the function is still judged.
// The statements of nested blocks are pruned alike; the original AST is not changed.
func withoutInvalidCalls(body *ast.BlockStmt, info *types.Info) *ast.BlockStmt {
	out := *body
	out.List = pruneStmts(body.List, info)
	return &out
}

func pruneStmts(list []ast.Stmt, info *types.Info) []ast.Stmt {
	out := make([]ast.Stmt, 0, len(list))
	for _, st := range list {
		switch st.(type) {
		case *ast.ExprStmt, *ast.DeferStmt, *ast.GoStmt:
			if hasInvalid(info, st) && !usesLocals(info, st) {
				st = &ast.EmptyStmt{Semicolon: st.Pos(), Implicit: true}
			}
		default:
			st = pruneNested(st, info)
		}
		out = append(out, st)
	}
	return out
}

// pruneNested is st with the statement lists it holds pruned (see pruneStmts).
func pruneNested(st ast.Stmt, info *types.Info) ast.Stmt {
	switch s := st.(type) {
	case *ast.BlockStmt:
		return withoutInvalidCalls(s, info)
	case *ast.IfStmt:
		c := *s
		c.Body = withoutInvalidCalls(s.Body, info)
		if s.Else != nil {
			c.Else = pruneNested(s.Else, info)
		}
		return &c
	case *ast.ForStmt:
		c := *s
		c.Body = withoutInvalidCalls(s.Body, info)
		return &c
	case *ast.RangeStmt:
		c := *s
		c.Body = withoutInvalidCalls(s.Body, info)
		return &c
	case *ast.SwitchStmt:
		c := *s
		c.Body = withoutInvalidCalls(s.Body, info)
		return &c
	case *ast.TypeSwitchStmt:
		c := *s
		c.Body = withoutInvalidCalls(s.Body, info)
		return &c
	case *ast.SelectStmt:
		c := *s
		c.Body = withoutInvalidCalls(s.Body, info)
		return &c
	case *ast.CaseClause:
		c := *s
		c.Body = pruneStmts(s.Body, info)
		return &c
	case *ast.CommClause:
		c := *s
		c.Body = pruneStmts(s.Body, info)
		return &c
	case *ast.LabeledStmt:
		c := *s
		c.Stmt = pruneNested(s.Stmt, info)
		return &c
	}
	return st
}

// usesLocals reports whether n uses a variable declared inside a function (a parameter, a
// receiver, a local), as opposed to one of a package.
func usesLocals(info *types.Info, n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && !found {
			if v, ok := info.Uses[id].(*types.Var); ok && !v.IsField() && v.Parent() != nil && v.Parent() != v.Pkg().Scope() {
				found = true
			}
		}
		return !found
	})
	return found
}
