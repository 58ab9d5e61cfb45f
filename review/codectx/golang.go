package codectx

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
)

// goScopes reads a Go file's functions, methods and type declarations through go/ast (doc
// comments included in their lines), with the names each function calls.
func goScopes(p string, src []byte) ([]Scope, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("go: %w", err)
	}
	line := func(pos token.Pos) int { return fset.Position(pos).Line }
	var out []Scope
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			start := line(d.Pos())
			if d.Doc != nil {
				start = line(d.Doc.Pos())
			}
			calls, refs := goCalls(d)
			out = append(out, Scope{
				Path: p, Name: d.Name.Name, Label: goLabel(fset, d), Function: true,
				Start: start, End: line(d.End()), Calls: calls, Refs: refs,
			})
		case *ast.GenDecl:
			if d.Tok != token.TYPE {
				continue
			}
			for _, s := range d.Specs {
				ts := s.(*ast.TypeSpec)
				start, end := line(ts.Pos()), line(ts.End())
				if len(d.Specs) == 1 {
					start, end = line(d.Pos()), line(d.End())
					if d.Doc != nil {
						start = line(d.Doc.Pos())
					}
				}
				out = append(out, Scope{Path: p, Name: ts.Name.Name, Label: "type " + ts.Name.Name, Start: start, End: end})
			}
		}
	}
	return out, nil
}

// goLabel is "func Name" or "func (r *T) Name".
func goLabel(fset *token.FileSet, d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return "func " + d.Name.Name
	}
	var b bytes.Buffer
	if err := printer.Fprint(&b, fset, d.Recv.List[0].Type); err != nil || b.Len() > 80 {
		return "func " + d.Name.Name
	}
	recv := b.String()
	if names := d.Recv.List[0].Names; len(names) > 0 {
		recv = names[0].Name + " " + recv
	}
	return "func (" + recv + ") " + d.Name.Name
}

// goCalls lists the simple names a function calls (f(), x.f(), f[T]()) and the other names
// it uses (a method value passed as a handler, a type, a variable), each once.
func goCalls(d *ast.FuncDecl) (calls, refs []string) {
	called := map[*ast.Ident]bool{}
	seen := map[string]bool{d.Name.Name: true}
	ast.Inspect(d, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if id := calledIdent(call.Fun); id != nil {
				called[id] = true
				if !seen[id.Name] {
					seen[id.Name] = true
					calls = append(calls, id.Name)
				}
			}
		}
		return true
	})
	ast.Inspect(d, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id != d.Name && !called[id] && !seen[id.Name] && id.Name != "_" {
			seen[id.Name] = true
			refs = append(refs, id.Name)
		}
		return true
	})
	return calls, refs
}

// calledIdent is the name a call expression calls, or nil (a call of a function literal).
func calledIdent(fun ast.Expr) *ast.Ident {
	for {
		switch x := fun.(type) {
		case *ast.IndexExpr:
			fun = x.X
		case *ast.IndexListExpr:
			fun = x.X
		case *ast.ParenExpr:
			fun = x.X
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			return x.Sel
		default:
			return nil
		}
	}
}
