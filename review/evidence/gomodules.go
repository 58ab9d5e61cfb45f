package evidence

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/debatebot/debatebot/review/evidence/scan"
	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/tools/go/packages"
)

// A tree's dependencies are resolved the way a CI lint job resolves them: the go command
// downloads the modules the changed packages import through a module proxy, into a module cache
// shared by every tree and debate, with checksums verified against the tree's go.sum and a sum
// database. A download runs no code and reaches only the proxy: there is no "direct" fallback,
// no version control tool is ever run for a module (GOVCS), no toolchain is downloaded, cgo is
// off, and the host's private-module settings do not apply. Resolution runs before the analysis,
// under a time limit; the analysis itself never downloads (GOPROXY=off) and takes what the cache
// holds, so a slow proxy degrades packages instead of stopping the review.

// Defaults of the module settings (see ModuleSettingsFromEnv).
const (
	DefaultGoProxy    = "https://proxy.golang.org"
	DefaultGoSumDB    = "sum.golang.org"
	DefaultModCacheMB = 4096
	DefaultModTimeout = 90 * time.Second
	modCacheSubdir    = "debatebot/gomod"
	envGoProxy        = "DEBATEBOT_GOPROXY"
	envGoSumDB        = "DEBATEBOT_GOSUMDB"
	envGoModCache     = "DEBATEBOT_GOMODCACHE"
	envGoModCacheMB   = "DEBATEBOT_GOMODCACHE_MB"
	envGoModTimeout   = "DEBATEBOT_GOMOD_TIMEOUT"
	goEnvDownloadsOff = "off"
)

// ModuleSettings say how the analysis gets the Go modules a tree depends on.
type ModuleSettings struct {
	// Proxy is the go command's GOPROXY: module proxy URLs separated by "," or "|", without
	// "direct"; "off" downloads nothing.
	Proxy string
	// SumDB is the go command's GOSUMDB, reached through the proxy; "off" trusts the proxy and
	// the tree's go.sum alone.
	SumDB string
	// Cache is the shared module cache (GOMODCACHE); CacheBytes caps its size (0: no cap).
	Cache      string
	CacheBytes int64
	// Timeout bounds the resolution of one module's dependencies.
	Timeout time.Duration
}

// ModuleSettingsFromEnv reads the module settings from DEBATEBOT_GOPROXY, DEBATEBOT_GOSUMDB,
// DEBATEBOT_GOMODCACHE, DEBATEBOT_GOMODCACHE_MB and DEBATEBOT_GOMOD_TIMEOUT; an unset or
// unreadable value takes its default.
func ModuleSettingsFromEnv(getenv func(string) string) ModuleSettings {
	m := ModuleSettings{
		Proxy:      proxyList(getenv(envGoProxy)),
		SumDB:      strings.TrimSpace(getenv(envGoSumDB)),
		Cache:      strings.TrimSpace(getenv(envGoModCache)),
		CacheBytes: DefaultModCacheMB << 20,
		Timeout:    DefaultModTimeout,
	}
	if m.SumDB == "" {
		m.SumDB = DefaultGoSumDB
	}
	if m.Cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		m.Cache = filepath.Join(dir, filepath.FromSlash(modCacheSubdir))
	}
	if mb, err := strconv.ParseInt(strings.TrimSpace(getenv(envGoModCacheMB)), 10, 64); err == nil && mb >= 0 {
		m.CacheBytes = mb << 20
	}
	if v := strings.TrimSpace(getenv(envGoModTimeout)); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			m.Timeout = d
		} else if s, err := strconv.Atoi(v); err == nil && s > 0 {
			m.Timeout = time.Duration(s) * time.Second
		}
	}
	return m
}

// proxyList is v as a GOPROXY without "direct" (which would clone repositories with version
// control tools) and without "off" entries; unset is the public proxy, nothing left is "off".
func proxyList(v string) string {
	v = strings.TrimSpace(v)
	if v == "" {
		return DefaultGoProxy
	}
	var kept []string
	rest := v
	for rest != "" {
		i := strings.IndexAny(rest, ",|")
		item, sep := rest, ""
		if i >= 0 {
			item, sep, rest = rest[:i], rest[i:i+1], rest[i+1:]
		} else {
			rest = ""
		}
		item = strings.TrimSpace(item)
		if item == "" || item == "direct" || item == goEnvDownloadsOff {
			continue
		}
		kept = append(kept, item, sep)
	}
	if len(kept) == 0 {
		return goEnvDownloadsOff
	}
	return strings.Join(kept[:len(kept)-1], "")
}

// downloads reports whether the settings let modules be downloaded.
func (m ModuleSettings) downloads() bool { return m.Proxy != goEnvDownloadsOff }

// controlledGoEnv are the go command's variables the analysis sets itself: the host's values
// (a private module pattern that would bypass the proxy, an insecure host, a go env file) never
// apply.
var controlledGoEnv = []string{
	"GOPROXY", "GOSUMDB", "GONOSUMDB", "GONOSUMCHECK", "GONOPROXY", "GOPRIVATE", "GOINSECURE",
	"GOFLAGS", "GOWORK", "GOTOOLCHAIN", "GOVCS", "GOMODCACHE", "GOENV", "CGO_ENABLED", "GO111MODULE",
	"GOAUTH",
}

// goEnv is the go command's environment for analysis under the module settings m: the host's
// environment less the App's secrets and the variables the analysis controls, with downloads off
// (see resolveEnv for the resolution step).
func goEnv(m ModuleSettings) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !secretEnv(kv) && !slices.Contains(controlledGoEnv, name) {
			env = append(env, kv)
		}
	}
	env = append(env, "GOPROXY=off", "GOSUMDB=off", "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local",
		"GOVCS=*:off", "GOENV=off", "GO111MODULE=on", "CGO_ENABLED=0", "GOPRIVATE=", "GONOPROXY=", "GONOSUMDB=",
		"GOINSECURE=", "GOAUTH=off")
	if m.Cache != "" {
		env = append(env, "GOMODCACHE="+m.Cache)
	}
	return env
}

// resolveEnv is env (an analysis environment) with downloads through m's proxy, verified by m's
// sum database. Later entries win, so the host's values are overridden whatever env holds.
func resolveEnv(env []string, m ModuleSettings) []string {
	return append(slices.Clip(env), "GOPROXY="+m.Proxy, "GOSUMDB="+sumDBThroughProxy(m), "GOVCS=*:off", "GOTOOLCHAIN=local",
		"CGO_ENABLED=0", "GOFLAGS=-mod=mod", "GOPRIVATE=", "GONOPROXY=", "GONOSUMDB=", "GOINSECURE=", "GOENV=off", "GOAUTH=off")
}

// sumDBThroughProxy is m's GOSUMDB with the checksum database reached through m's first proxy
// ("sum.golang.org https://proxy.golang.org/sumdb/sum.golang.org"): the go command would
// otherwise connect to the database itself when the proxy does not serve it. A setting that
// names its own URL, and "off", are kept as they are.
func sumDBThroughProxy(m ModuleSettings) string {
	fields := strings.Fields(m.SumDB)
	if len(fields) != 1 || m.SumDB == goEnvDownloadsOff || !m.downloads() {
		return m.SumDB
	}
	first, _, _ := strings.Cut(strings.NewReplacer("|", ",").Replace(m.Proxy), ",")
	name, _, _ := strings.Cut(fields[0], "+")
	return fields[0] + " " + strings.TrimSuffix(first, "/") + "/sumdb/" + name
}

// resolution is what resolving one module's dependencies said.
type resolution struct {
	// timedOut: the time limit ended the resolution.
	timedOut bool
	// problems are the go command's checksum complaints ("verifying example.com/m@v1.0.0:
	// checksum mismatch"), by module path.
	problems map[string]string
	// modules are the module versions the load needs ("path@version"), to mark them used.
	modules []string
	// mismatched are module versions whose go.mod declares another path (see resolveExcluding).
	mismatched []module.Version
}

const resolveMode = packages.NeedName | packages.NeedImports | packages.NeedDeps | packages.NeedModule

// resolve lets the go command download what loading cfg's patterns needs, through m's proxy,
// within m.Timeout; the copy of go.mod in the scratch directory receives the requirements and
// go.sum lines it adds. It never fails: whatever did not arrive degrades the packages needing it.
func resolve(ctx context.Context, cfg *packages.Config, m ModuleSettings, patterns []string) (*resolution, error) {
	rctx, cancel := context.WithTimeout(ctx, m.Timeout)
	defer cancel()
	rcfg := *cfg
	rcfg.Context, rcfg.Mode, rcfg.Env = rctx, resolveMode, resolveEnv(cfg.Env, m)
	res := &resolution{problems: map[string]string{}}
	pkgs, err := packages.Load(&rcfg, patterns...)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("resolving dependencies stopped: %w", ctx.Err())
	}
	if errors.Is(rctx.Err(), context.DeadlineExceeded) {
		res.timedOut = true
		return res, nil
	}
	if err != nil {
		res.addProblems(err.Error())
	}
	seen := map[string]bool{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			res.addProblems(e.Msg)
		}
		if mod := p.Module; mod != nil {
			if mod.Replace != nil {
				mod = mod.Replace
			}
			if key := mod.Path + "@" + mod.Version; mod.Version != "" && !seen[key] {
				seen[key] = true
				res.modules = append(res.modules, key)
			}
		}
	})
	return res, nil
}

// addProblems keeps the checksum complaints of the go command's message msg.
func (r *resolution) addProblems(msg string) {
	r.addMismatches(msg)
	for _, line := range strings.Split(msg, "\n") {
		line = strings.TrimSpace(line)
		if !strings.Contains(line, "checksum mismatch") && !strings.Contains(line, "missing go.sum entry") {
			continue
		}
		line = strings.TrimPrefix(line, "go: ")
		mod := line
		if i := strings.Index(line, "verifying "); i >= 0 {
			mod = line[i+len("verifying "):]
		}
		mod, _, _ = strings.Cut(mod, "@")
		mod = strings.TrimSpace(mod)
		if _, ok := r.problems[mod]; !ok && mod != "" {
			r.problems[mod] = line
		}
	}
}

// explain adds to a degraded package's reason the checksum complaint of a module its errors
// name, which says why the module is missing better than the offline load does.
func (r *resolution) explain(reason string, errs []packages.Error) string {
	if r == nil {
		return reason
	}
	for mod, problem := range r.problems {
		for _, e := range errs {
			if strings.Contains(e.Msg, mod) {
				return reason + " (the download of " + mod + " was refused: " + scan.Clip(problem, 200) + "; the module the proxy serves does not match the checksum the tree's go.sum or the checksum database records)"
			}
		}
	}
	return reason
}

// vendored reports whether the module at modDir has a vendor folder to load from: a
// vendor/modules.txt that lists every requirement of its go.mod at the required version (the
// go command refuses an inconsistent one).
func vendored(modDir string, goMod []byte) bool {
	list, err := os.ReadFile(filepath.Join(modDir, "vendor", "modules.txt"))
	if err != nil {
		return false
	}
	f, err := modfile.ParseLax("go.mod", goMod, nil)
	if err != nil {
		return false
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(string(list), "\n") {
		fields := strings.Fields(line)
		if len(fields) >= 3 && fields[0] == "#" {
			listed[fields[1]+" "+fields[2]] = true
		}
	}
	for _, r := range f.Require {
		if !listed[r.Mod.Path+" "+r.Mod.Version] {
			return false
		}
	}
	return true
}
