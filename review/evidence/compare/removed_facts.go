package compare

import (
	"strings"
)

// This file says what the comparison of base and head (removed.go) knows about calls: which
// reach a security sink, which protect a value (sanitisers, validators, escapers), which release
// a resource, which carry a context or a deadline; the names it reads are in names.go. Names
// are the last resort: a function of the
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

// predicateImplies says which tests of a path are true whenever another is, on the same path:
// a regular file or a directory exists. A guard that refuses `not exists(p) or not isfile(p)`
// loses nothing when it drops `not exists(p)`. Python's os.path functions by name, pathlib's
// methods by their name after a dot.
var predicateImplies = map[string][]string{
	"os.path.isfile":  {"os.path.exists", "os.path.lexists"},
	"os.path.isdir":   {"os.path.exists", "os.path.lexists"},
	"os.path.ismount": {"os.path.exists", "os.path.lexists", "os.path.isdir"},
	"os.path.islink":  {"os.path.lexists"},
	"os.path.exists":  {"os.path.lexists"},
	".is_file":        {".exists"},
	".is_dir":         {".exists"},
	".is_mount":       {".exists", ".is_dir"},
}
