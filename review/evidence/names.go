package evidence

import (
	"slices"
	"strings"
)

// This file holds the names the analyses know, as data in one place (as gosec's taint
// configuration is): the calls that reach a sensitive sink, the sanitisers and validators that
// protect a value on its way there, the words that name a check, and the calls that release a
// resource, carry a context or run work off the event loop. The analyses read these tables; they
// hold no lists of names of their own. names_test.go checks the tables are well-formed.

// Type-checked Go (summary.go, weakened.go): sinks and sanitisers by package, receiver and name.

// goSink is a call that takes a value to a sensitive sink: the function (Recv "") or the method
// of Recv named one of Names in package Pkg. The value is its argument Arg, with every argument
// after it when Rest. ToResponse: only when the call's first argument is an http.ResponseWriter.
type goSink struct {
	Pkg, Recv  string
	Names      []string
	Kind       string
	Arg        int
	Rest       bool
	ToResponse bool
}

var goSinks = []goSink{
	{Pkg: "os", Names: []string{"Open", "OpenFile", "Create", "ReadFile", "WriteFile", "Remove", "RemoveAll", "Mkdir", "MkdirAll", "Rename", "ReadDir", "Chmod", "Chown", "Truncate", "Symlink", "Link"}, Kind: sinkFile},
	{Pkg: "io/ioutil", Names: []string{"ReadFile", "WriteFile", "ReadDir"}, Kind: sinkFile},
	{Pkg: "path/filepath", Names: []string{"Join"}, Kind: sinkFile, Rest: true},
	{Pkg: "net/http", Names: []string{"ServeFile"}, Kind: sinkFile, Arg: 2},
	{Pkg: "os/exec", Names: []string{"Command"}, Kind: sinkExec, Rest: true},
	{Pkg: "os/exec", Names: []string{"CommandContext"}, Kind: sinkExec, Arg: 1, Rest: true},
	{Pkg: "syscall", Names: []string{"Exec"}, Kind: sinkExec},
	{Pkg: "os", Names: []string{"StartProcess"}, Kind: sinkExec},
	{Pkg: "net/http", Names: []string{"Get", "Head", "Post", "PostForm"}, Kind: sinkURL},
	{Pkg: "net/http", Recv: "Client", Names: []string{"Get", "Head", "Post", "PostForm", "Do"}, Kind: sinkURL},
	{Pkg: "net/http", Names: []string{"NewRequest"}, Kind: sinkURL, Arg: 1},
	{Pkg: "net/http", Names: []string{"NewRequestWithContext"}, Kind: sinkURL, Arg: 2},
	{Pkg: "net", Names: []string{"Dial", "DialTimeout"}, Kind: sinkURL, Arg: 1},
	{Pkg: "net", Recv: "Dialer", Names: []string{"Dial"}, Kind: sinkURL, Arg: 1},
	{Pkg: "net", Recv: "Dialer", Names: []string{"DialContext"}, Kind: sinkURL, Arg: 2},
	{Pkg: "net/http", Names: []string{"Redirect"}, Kind: sinkRedirect, Arg: 2},
	{Pkg: "net/http", Recv: "ResponseWriter", Names: []string{"Write"}, Kind: sinkHTML, Rest: true},
	{Pkg: "fmt", Names: []string{"Fprintf", "Fprint", "Fprintln"}, Kind: sinkHTML, Arg: 1, Rest: true, ToResponse: true},
	{Pkg: "io", Names: []string{"WriteString"}, Kind: sinkHTML, Arg: 1, Rest: true, ToResponse: true},
}

// goSanitiser is a sanitiser, validator or guard of the standard library: a function or method
// (functions only when FuncsOnly) of one of Pkgs whose name is one of Names, starts with one of
// Prefixes or contains one of Contains. Protects are the sink kinds it protects; nil: any.
type goSanitiser struct {
	Pkgs                      []string
	FuncsOnly                 bool
	Names, Prefixes, Contains []string
	Protects                  []string
}

var goSanitisers = []goSanitiser{
	{Pkgs: []string{"path/filepath"}, FuncsOnly: true, Names: []string{"Clean", "Rel", "IsLocal", "Abs", "EvalSymlinks", "Base", "Localize", "Match"}, Protects: []string{sinkFile, sinkURL, sinkRedirect}},
	{Pkgs: []string{"path"}, FuncsOnly: true, Names: []string{"Clean", "Base"}, Protects: []string{sinkFile, sinkURL, sinkRedirect}},
	{Pkgs: []string{"strings"}, Names: []string{"HasPrefix", "HasSuffix", "Contains", "ContainsAny", "ContainsRune", "EqualFold"}},
	{Pkgs: []string{"net/url"}, Names: []string{"Parse", "ParseRequestURI", "Hostname", "Port", "IsAbs"}, Protects: []string{sinkURL, sinkRedirect}},
	{Pkgs: []string{"net/url"}, Names: []string{"QueryEscape", "PathEscape"}, Protects: []string{sinkHTML, sinkURL, sinkRedirect}},
	{Pkgs: []string{"net", "net/netip"}, Names: []string{"ParseIP", "ParseAddr", "Contains", "ResolveIPAddr"}, Prefixes: []string{"Is", "Lookup"}, Protects: []string{sinkURL}},
	{Pkgs: []string{"html"}, Names: []string{"EscapeString"}, Protects: []string{sinkHTML}},
	{Pkgs: []string{"html/template", "text/template"}, Contains: []string{"Escape"}, Protects: []string{sinkHTML}},
	{Pkgs: []string{"strconv"}, Names: []string{"Atoi"}, Prefixes: []string{"Parse", "Quote"}},
	{Pkgs: []string{"regexp"}, Names: []string{"FindString"}, Prefixes: []string{"Match"}},
	{Pkgs: []string{"unicode/utf8"}, Prefixes: []string{"Valid"}},
	{Pkgs: []string{"slices"}, Names: []string{"Contains", "Index"}},
	{Pkgs: []string{"os/exec"}, Names: []string{"LookPath"}},
}

// sanitiserOf says whether the function or method (recv, "" for a function) name of package pkg
// is one of goSanitisers, and the sink kinds it protects (nil: any).
func sanitiserOf(pkg, recv, name string) (map[string]bool, bool) {
	for _, s := range goSanitisers {
		if !slices.Contains(s.Pkgs, pkg) || s.FuncsOnly && recv != "" {
			continue
		}
		if !slices.Contains(s.Names, name) && !slices.ContainsFunc(s.Prefixes, func(p string) bool { return strings.HasPrefix(name, p) }) &&
			!slices.ContainsFunc(s.Contains, func(c string) bool { return strings.Contains(name, c) }) {
			continue
		}
		if s.Protects == nil {
			return nil, true
		}
		return kinds(s.Protects...), true
	}
	return nil, false
}

// guardPrefixes (summary.go) start the names of the project's own checks (validatePath, isAllowedHost,
// checkName, sanitize, ...): the next letter after the prefix is upper case, or the name ends.
var guardPrefixes = []string{"validate", "valid", "check", "sanitize", "sanitise", "verify", "is", "ensure", "must", "allow", "safe", "escape", "authorize", "authorise", "permit", "can",
	"clean", "normalize", "normalise", "quote", "secure"}

// Work per loop iteration (loopcost.go): the database calls, by method, on types of a database
// package.

// dbMethods are the methods that run a statement on the database, across database/sql, sqlx,
// pgx, gorm, ent, bun and the MongoDB driver; they count only on types of a database package.
var dbMethods = map[string]bool{
	"Query": true, "QueryContext": true, "QueryRow": true, "QueryRowContext": true, "Exec": true, "ExecContext": true,
	"Get": true, "GetContext": true, "Select": true, "SelectContext": true, "Queryx": true, "QueryxContext": true,
	"QueryRowx": true, "QueryRowxContext": true, "NamedExec": true, "NamedExecContext": true, "NamedQuery": true, "NamedQueryContext": true,
	"Find": true, "First": true, "Take": true, "Last": true, "FirstOrCreate": true, "FirstOrInit": true, "Create": true, "Save": true,
	"Update": true, "Updates": true, "UpdateColumn": true, "UpdateColumns": true, "Delete": true, "Count": true, "Pluck": true, "Scan": true,
	"All": true, "AllX": true, "Only": true, "OnlyX": true, "FirstX": true, "IDs": true, "Exist": true, "ExistX": true, "ExecX": true, "SaveX": true,
	"FindOne": true, "InsertOne": true, "InsertMany": true, "UpdateOne": true, "UpdateMany": true, "DeleteOne": true, "DeleteMany": true,
	"Aggregate": true, "CountDocuments": true, "SendBatch": true, "CopyFrom": true,
}

// notDBReceivers are types of database packages whose methods of those names do not reach the
// database (Rows.Scan reads a fetched row; a prepared Stmt in a loop is the bulk-insert idiom).
var notDBReceivers = map[string]bool{"Rows": true, "Row": true, "Stmt": true, "Result": true, "ColumnType": true}

// txWriteMethods start the names of the methods that write through a transaction (Tx.ExecContext,
// ...): one statement per element inside one transaction is the usual way to write many rows.
var txWriteMethods = []string{"Exec", "NamedExec", "Create", "Save", "Update", "Delete", "Insert", "CopyFrom", "SendBatch"}

// dbPackageElems are import path elements, and dbPackageHints substrings of import paths, of the
// database packages.
var (
	dbPackageElems = []string{"ent", "bun"}
	dbPackageHints = []string{"sql", "gorm", "pgx", "mongo", "redis"}
)

// The Go checks that need no type information (goast.go).

// sqlMethods are the methods that run SQL text, by the index of the text among their
// arguments (goast.go).
var sqlMethods = map[string]int{
	"Query": 0, "QueryRow": 0, "Exec": 0, "Prepare": 0, "Raw": 0,
	"QueryContext": 1, "QueryRowContext": 1, "ExecContext": 1, "PrepareContext": 1,
}

// ioMethods are the methods that run a database round trip (goast.go).
var ioMethods = map[string]bool{"Query": true, "QueryRow": true, "Exec": true, "QueryContext": true, "QueryRowContext": true, "ExecContext": true}

// prefixMeantWords are the words of a function or sequence name that say a prefix match is
// meant (hasPrefixFold, startsWith): the length-guard analysis (lengthguard.go) does not report
// such a loop as accepting a prefix.
var prefixMeantWords = []string{"prefix", "startswith", "starts"}
