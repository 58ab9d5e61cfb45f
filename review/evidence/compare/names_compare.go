package compare

import (
	"go/ast"
	"strings"
	"unicode"
)

// The comparison of base and head in every language (removed*.go): calls by their
// module-qualified name (resolveCall), the sinks a removed protection exposes, the words that name
// a protection, and the calls that release, carry a context or offload.

// fileCalls are the module-qualified calls that open, create, remove or name files.
var fileCalls = map[string]bool{
	"os.Open": true, "os.OpenFile": true, "os.Create": true, "os.CreateTemp": true, "os.ReadFile": true, "os.WriteFile": true,
	"os.Mkdir": true, "os.MkdirAll": true, "os.MkdirTemp": true, "os.Remove": true, "os.RemoveAll": true, "os.Rename": true,
	"os.Symlink": true, "os.Link": true, "os.Chmod": true, "os.Chtimes": true, "os.CopyFS": true, "os.DirFS": true,
	"os.ReadDir": true, "io/ioutil.ReadFile": true, "io/ioutil.WriteFile": true, "path/filepath.Join": true,
	"path/filepath.Abs": true, "path/filepath.Walk": true, "path/filepath.WalkDir": true,
	// Python
	"open": true, "io.open": true, "os.path.join": true, "os.path.abspath": true, "os.path.realpath": true, "os.remove": true,
	"os.unlink": true, "os.makedirs": true, "os.mkdir": true, "os.rename": true, "os.replace": true, "os.listdir": true,
	"os.scandir": true, "os.stat": true, "os.open": true, "os.rmdir": true, "posixpath.join": true, "ntpath.join": true,
	"glob.glob": true, "pathlib.Path": true, "flask.send_file": true, "flask.send_from_directory": true,
	// JavaScript
	"path.join": true, "path.resolve": true, "path.posix.join": true, "path.posix.resolve": true, "path.win32.join": true,
	"node:path.join": true, "node:path.resolve": true,
}

// fileModules are modules all of whose calls touch files.
var fileModules = map[string]bool{"fs": true, "node:fs": true, "fs/promises": true, "node:fs/promises": true, "fs-extra": true, "shutil": true}

// execCalls are the module-qualified calls that run a program.
var execCalls = map[string]bool{
	"os/exec.Command": true, "os/exec.CommandContext": true, "os.system": true, "os.popen": true, "os.execv": true,
	"os.execvp": true, "os.spawnv": true, "syscall.Exec": true,
}

// execModules are modules all of whose calls run programs.
var execModules = map[string]bool{"subprocess": true, "child_process": true, "node:child_process": true, "execa": true}

// httpCalls are the module-qualified calls that send an outbound HTTP request.
var httpCalls = map[string]bool{
	"net/http.Get": true, "net/http.Post": true, "net/http.Head": true, "net/http.PostForm": true,
	"net/http.NewRequest": true, "net/http.NewRequestWithContext": true, "urllib.request.urlopen": true,
	"http.request": true, "http.get": true, "https.request": true, "https.get": true, "node:http.request": true, "node:https.request": true,
}

// httpModules are modules all of whose calls send HTTP requests.
var httpModules = map[string]bool{"requests": true, "httpx": true, "aiohttp": true, "urllib3": true, "axios": true, "node-fetch": true, "got": true}

// archiveCalls are the module-qualified calls that open an archive for extraction.
var archiveCalls = map[string]bool{
	"archive/zip.OpenReader": true, "archive/zip.NewReader": true, "archive/tar.NewReader": true,
	"tarfile.open": true, "zipfile.ZipFile": true,
}

// sqlRunMethods run SQL text on a connection, a transaction or a cursor.
var sqlRunMethods = map[string]bool{
	"Query": true, "QueryRow": true, "QueryContext": true, "QueryRowContext": true, "Exec": true, "ExecContext": true,
	"Prepare": true, "PrepareContext": true, "execute": true, "executemany": true, "executescript": true, "query": true, "raw": true,
}

// headerNames are the headers whose value redirects or authenticates.
var headerNames = map[string]string{
	"location": exposeRedirect, "authorization": exposeAuth, "proxy-authorization": exposeAuth, "cookie": exposeAuth, "set-cookie": exposeAuth,
}

// Words that name what a protective call does. Strong ones make a value safe for an
// interpreter or a path (their removal is a weakness whatever is seen of the value's way); the
// others check or tidy it, and matter by where the value goes.
var (
	strongProtect = map[string]bool{
		"sanitize": true, "sanitise": true, "sanitizer": true, "escape": true, "quote": true,
		"canonical": true, "canonicalize": true, "canonicalise": true, "securejoin": true,
	}
	// clean, safe and normalize also name tidying of values that reach nothing sensitive
	// (clean_accept_ranges): they protect, and how much depends on where the value goes.
	weakProtect = map[string]bool{
		"clean": true, "safe": true,
		"validate": true, "valid": true, "validator": true, "check": true, "verify": true, "allowed": true, "allow": true,
		"within": true, "authorize": true, "authorise": true, "authenticate": true, "restrict": true, "guard": true,
		"permit": true, "permitted": true, "normalize": true, "normalise": true, "limit": true, "deny": true,
	}
	// notProtect are words that make a name something else than a protection ("quoted" is the
	// state, "unescape" the inverse).
	notProtect = map[string]bool{"unescape": true, "unquote": true, "unsafe": true}
)

// releaseNames are the methods and functions that release what was acquired.
var releaseNames = map[string]bool{
	"Close": true, "close": true, "Release": true, "release": true, "Unlock": true, "RUnlock": true, "unlock": true,
	"cancel": true, "Cancel": true, "dispose": true, "Dispose": true, "Shutdown": true, "shutdown": true, "cleanup": true,
	"Cleanup": true, "destroy": true, "Stop": true, "free": true, "Free": true, "closeSync": true,
}

// offloadCalls run a blocking function away from the event loop: the function is their first
// argument (run_in_executor's second).
var offloadCalls = map[string]int{"to_thread": 0, "run_in_executor": 1, "run_sync": 0, "sync_to_async": 0, "defer_to_thread": 0, "deferToThread": 0}

// timerArms are the calls of JavaScript (Node.js and browsers) that arm a timer; timerClears
// those that clear one.
var (
	timerArms   = []string{"setTimeout", "setInterval", "setImmediate"}
	timerClears = []string{"clearTimeout", "clearInterval", "clearImmediate"}
)

// ctxSuffixes are the name endings of the variants of a call that take a context.
var ctxSuffixes = []string{"WithContext", "Context", "Ctx"}

// AssumedName is the name a package is imported under without an alias, as goimports assumes it
// without loading the package: the last element that is not a major version ("math/rand/v2" ->
// rand), without a "go-" prefix, up to its first character that cannot be in an identifier
// ("github.com/dgrijalva/jwt-go" -> jwt, "gopkg.in/yaml.v3" -> yaml).
func AssumedName(p string) string {
	parts := strings.Split(p, "/")
	name := parts[len(parts)-1]
	if len(parts) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = parts[len(parts)-2]
	}
	name = strings.TrimPrefix(name, "go-")
	if i := strings.IndexFunc(name, func(r rune) bool { return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) }); i > 0 {
		name = name[:i]
	}
	return name
}

func IdentsOf(e ast.Expr) []string {
	var out []string
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			out = append(out, id.Name)
		}
		return true
	})
	return out
}
