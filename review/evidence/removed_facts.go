package evidence

import (
	"strings"
)

// This file says what the comparison of base and head (removed.go) knows about calls: which
// reach a security sink, which protect a value (sanitisers, validators, escapers), which release
// a resource, which carry a context or a deadline. Names are the last resort: a function of the
// change's trees is judged by what its body does (a prefix comparison, a ".." it rejects, a
// refusal under a condition) before its name is.

// Sink categories: what a protection removed from the path to them exposes.
const (
	exposeFile     = "a file system path"
	exposeExec     = "a command"
	exposeSQL      = "an SQL statement"
	exposeRedirect = "a redirect"
	exposeHTTP     = "an outbound HTTP request"
	exposeArchive  = "archive extraction"
	exposeAuth     = "an authentication header"
)

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

var execCalls = map[string]bool{
	"os/exec.Command": true, "os/exec.CommandContext": true, "os.system": true, "os.popen": true, "os.execv": true,
	"os.execvp": true, "os.spawnv": true, "syscall.Exec": true,
}

var execModules = map[string]bool{"subprocess": true, "child_process": true, "node:child_process": true, "execa": true}

var httpCalls = map[string]bool{
	"net/http.Get": true, "net/http.Post": true, "net/http.Head": true, "net/http.PostForm": true,
	"net/http.NewRequest": true, "net/http.NewRequestWithContext": true, "urllib.request.urlopen": true,
	"http.request": true, "http.get": true, "https.request": true, "https.get": true, "node:http.request": true, "node:https.request": true,
}

var httpModules = map[string]bool{"requests": true, "httpx": true, "aiohttp": true, "urllib3": true, "axios": true, "node-fetch": true, "got": true}

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

// resolve returns the module-qualified name of a call through the file's imports
// ("filepath.Join" → "path/filepath.Join", "pth.resolve" → "path.resolve", "join" imported from
// os.path → "os.path.join"), and the module.
func resolveCall(callee string, imports map[string]string) (full, module string) {
	callee = strings.TrimPrefix(callee, "new ")
	root := dottedRoot(callee)
	if root == "" {
		return callee, ""
	}
	mod, ok := imports[root]
	if !ok {
		return callee, ""
	}
	rest := strings.TrimPrefix(callee, root)
	full = mod + rest
	module = mod
	if rest == "" {
		// from os.path import join: the import names the function itself
		module = qualifier(mod)
	} else if q := qualifier(full); q != "" {
		module = q
	}
	return full, module
}

// callSink says which sink a call is, "" if none.
func callSink(c irCall, imports map[string]string) string {
	full, module := resolveCall(c.Callee, imports)
	name := c.name()
	switch {
	case fileCalls[full] || fileModules[module] || fileModules[rootModule(module)]:
		return exposeFile
	case execCalls[full] || execModules[module] || execModules[rootModule(module)]:
		return exposeExec
	case httpCalls[full] || httpModules[module] || httpModules[rootModule(module)] || c.Callee == "fetch":
		return exposeHTTP
	case archiveCalls[full]:
		return exposeArchive
	case (name == "Do" || name == "Post" || name == "PostForm") && module == "" && httpClientLike(c):
		return exposeHTTP // (*http.Client).Do, .Post
	case name == "redirect" || name == "Redirect":
		return exposeRedirect
	case name == "extractall" || name == "extract" && qualifier(c.Callee) != "":
		return exposeArchive
	case sqlRunMethods[name] && qualifier(c.Callee) != "":
		return exposeSQL
	}
	switch name {
	case "set", "Set", "setHeader", "header", "Add", "add_header", "writeHead":
		if len(c.Args) > 0 {
			if cat := headerNames[strings.ToLower(strings.Trim(c.Args[0], "\"'`"))]; cat != "" {
				return cat
			}
		}
	}
	return ""
}

// httpClientLike reports whether a Do or Post call looks like an HTTP client's (without types):
// its receiver is named like a client or it is given a request (sync.Once.Do is neither).
func httpClientLike(c irCall) bool {
	recv := strings.ToLower(qualifier(c.Callee))
	if recv == "" {
		return false
	}
	if strings.Contains(recv, "client") || strings.Contains(recv, "http") {
		return true
	}
	return len(c.Args) == 1 && strings.Contains(strings.ToLower(c.Args[0]), "req")
}

func rootModule(m string) string {
	if i := strings.IndexAny(m, "./"); i > 0 {
		return m[:i]
	}
	return m
}

// nodeSink says which sink a statement is by itself, beyond its calls: an assignment of a
// redirect or authentication header (headers["Location"] = ...).
func nodeSink(n *irNode) string {
	if n.Kind != kindAssign {
		return ""
	}
	for _, d := range n.Defs {
		if strings.Contains(strings.ToLower(d), "header") {
			for _, s := range n.Strs {
				if cat := headerNames[strings.ToLower(s)]; cat != "" {
					return cat
				}
			}
		}
	}
	return ""
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

// protectionWords returns the protective words of a callee's name, and whether one is strong.
func protectionWords(callee string) (ws []string, strong bool) {
	name := lastSegment(strings.TrimPrefix(callee, "new "))
	for _, w := range nameWords(name) {
		if notProtect[w] {
			return nil, false
		}
		if strongProtect[w] {
			ws, strong = append(ws, w), true
		} else if weakProtect[w] {
			ws = append(ws, w)
		}
	}
	return ws, strong
}

// releaseNames are the methods and functions that release what was acquired.
var releaseNames = map[string]bool{
	"Close": true, "close": true, "Release": true, "release": true, "Unlock": true, "RUnlock": true, "unlock": true,
	"cancel": true, "Cancel": true, "dispose": true, "Dispose": true, "Shutdown": true, "shutdown": true, "cleanup": true,
	"Cleanup": true, "destroy": true, "Stop": true, "free": true, "Free": true, "closeSync": true,
}

// timerArms are the calls of JavaScript (Node.js and browsers) that arm a timer; timerClears
// those that clear one.
var (
	timerArms   = []string{"setTimeout", "setInterval", "setImmediate"}
	timerClears = []string{"clearTimeout", "clearInterval", "clearImmediate"}
)

// offloadCalls run a blocking function away from the event loop: the function is their first
// argument (run_in_executor's second).
var offloadCalls = map[string]int{"to_thread": 0, "run_in_executor": 1, "run_sync": 0, "sync_to_async": 0, "defer_to_thread": 0, "deferToThread": 0}

// ctxSuffixes are the name endings of the variants of a call that take a context.
var ctxSuffixes = []string{"WithContext", "Context", "Ctx"}

// isContextArg reports whether an argument's text is a context or a deadline.
func isContextArg(a string) bool {
	a = strings.TrimSpace(a)
	low := strings.ToLower(a)
	switch {
	case a == "ctx" || strings.HasSuffix(a, "Ctx") || strings.HasSuffix(a, ".ctx") || strings.HasSuffix(low, "context()"):
		return true
	case strings.HasPrefix(a, "context.") && (strings.HasSuffix(a, "Background()") || strings.HasSuffix(a, "TODO()")):
		return true
	case strings.HasPrefix(low, "timeout=") || strings.HasPrefix(low, "deadline=") || strings.HasPrefix(low, "signal="):
		return true
	}
	return false
}

// isTimeoutKey reports whether a configuration field bounds time.
func isTimeoutKey(k string) bool {
	for _, w := range nameWords(k) {
		if w == "timeout" || w == "deadline" || w == "signal" {
			return true
		}
	}
	return false
}

// restrictingField reports whether a configuration field restricts by its name and value
// (CheckRedirect: a function, AllowedHosts: a list, MaxBytes: a number); a permission turned on
// (allowPrototypes: true) or a check turned off (verify: false) restricts nothing, and removing
// it hardens.
func restrictingField(key, value string) bool {
	v := strings.ToLower(strings.TrimSpace(value))
	permissive := map[string]bool{"allow": true, "allowed": true, "permit": true, "permitted": true}
	ws, _ := protectionWords(key)
	for _, w := range ws {
		if permissive[w] && v == "true" || !permissive[w] && v == "false" {
			return false
		}
	}
	if len(ws) > 0 {
		return true
	}
	for _, w := range nameWords(key) {
		if w == "max" || w == "deny" || w == "allowlist" || w == "whitelist" || w == "blocklist" {
			return true
		}
	}
	return false
}
