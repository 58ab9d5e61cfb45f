package evidence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"sync"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// A pin is turned into a module version by the module proxy, as the go command does for a
// query: GET <proxy>/<module>/@v/<revision>.info answers the canonical version of a commit hash
// (a pseudo-version) or of a tag. The import path a file names may be a package inside its
// module (godep, govendor): the proxy is asked for the path, then for its parents. Only the
// proxy is reached, within the module settings' time limit; with downloads off nothing is
// asked and the dependencies resolve as without pins.

// pinWorkers bounds the proxy queries in flight for one tree.
const pinWorkers = 8

// pinInfoLimit bounds the size of one answer of the proxy read (a version list can be long).
const pinInfoLimit = 1 << 20

// errNotFound is the proxy saying it has no such module or version (404 or 410).
var errNotFound = errors.New("not found")

// resolvePins asks the proxies of m for the module version of each pin and returns the
// requirements found (one per module path, sorted) and how many pins none answered for.
// Pins inside modPath (the tree's own module) are skipped.
func resolvePins(ctx context.Context, m ModuleSettings, modPath string, pins []gopin) ([]module.Version, int) {
	if !m.downloads() || len(pins) == 0 {
		return nil, 0
	}
	rctx, cancel := context.WithTimeout(ctx, m.Timeout)
	defer cancel()
	client := &http.Client{}
	found := make([]module.Version, len(pins))
	ok := make([]bool, len(pins))
	// A fixed pool of workers takes the pins in turn: a lock file of a hostile tree may name
	// thousands, and each costs a query, never a goroutine of its own.
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(pinWorkers, len(pins)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				found[i], ok[i] = resolvePin(rctx, client, m.Proxy, pins[i])
			}
		}()
	}
	for i, p := range pins {
		if p.path == modPath || strings.HasPrefix(p.path, modPath+"/") {
			ok[i] = true // not a dependency: never counted as unresolved
			continue
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return pinRequirements(found, ok)
}

// pinRequirements keeps one version per module path (the highest, as minimal version selection
// would) and counts the pins not resolved.
func pinRequirements(found []module.Version, ok []bool) ([]module.Version, int) {
	best := map[string]string{}
	missing := 0
	for i, v := range found {
		switch {
		case !ok[i]:
			missing++
		case v.Path == "":
		case best[v.Path] == "" || semver.Compare(v.Version, best[v.Path]) > 0:
			best[v.Path] = v.Version
		}
	}
	out := make([]module.Version, 0, len(best))
	for p, v := range best {
		out = append(out, module.Version{Path: p, Version: v})
	}
	module.Sort(out)
	return out, missing
}

// resolvePin asks for p's path and then its parents (a package's module) until a proxy knows
// the revision there.
func resolvePin(ctx context.Context, client *http.Client, proxy string, p gopin) (module.Version, bool) {
	for mod := p.path; strings.Contains(mod, "/"); mod = path.Dir(mod) {
		v, err := pinInfo(ctx, client, proxy, mod, p.rev)
		if err == nil {
			return module.Version{Path: mod, Version: v}, true
		}
		if !errors.Is(err, errNotFound) {
			return module.Version{}, false
		}
	}
	return module.Version{}, false
}

// pinInfo asks the proxy list proxy (GOPROXY syntax) for the version of rev of module mod: a
// proxy that does not know it passes the question to the next one; after "|", any failure does.
func pinInfo(ctx context.Context, client *http.Client, proxy, mod, rev string) (string, error) {
	escMod, err := module.EscapePath(mod)
	if err != nil {
		return "", errNotFound
	}
	escRev, err := module.EscapeVersion(rev)
	if err != nil {
		return "", errNotFound
	}
	err = errNotFound
	for rest := proxy; rest != ""; {
		i := strings.IndexAny(rest, ",|")
		item, sep := rest, byte(',')
		if i >= 0 {
			item, sep, rest = rest[:i], rest[i], rest[i+1:]
		} else {
			rest = ""
		}
		base := strings.TrimSuffix(strings.TrimSpace(item), "/") + "/" + escMod + "/@v/"
		var v string
		v, err = proxyGet(ctx, client, base+escRev+".info", infoVersion)
		if err != nil && isCommitHash(rev) {
			// A proxy that answers no query still lists the versions it holds: a pseudo-version
			// ends with the commit's first 12 hex digits.
			v, err = proxyGet(ctx, client, base+"list", func(body []byte) (string, error) { return listedPseudo(body, rev) })
		}
		if err == nil {
			if module.Check(mod, v) != nil {
				return "", errNotFound
			}
			return v, nil
		}
		if !errors.Is(err, errNotFound) && sep != '|' {
			return "", err
		}
	}
	return "", err
}

// isCommitHash reports whether rev looks like a full git commit hash.
func isCommitHash(rev string) bool {
	if len(rev) != 40 {
		return false
	}
	for _, c := range rev {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// listedPseudo is the pseudo-version of commit rev in a proxy's version list.
func listedPseudo(list []byte, rev string) (string, error) {
	for _, v := range strings.Fields(string(list)) {
		if !module.IsPseudoVersion(v) {
			continue
		}
		if r, err := module.PseudoVersionRev(v); err == nil && len(r) >= 12 && strings.HasPrefix(rev, r) {
			return v, nil
		}
	}
	return "", errNotFound
}

// infoVersion reads the version of a proxy's .info answer.
func infoVersion(body []byte) (string, error) {
	var info struct{ Version string }
	if err := json.Unmarshal(body, &info); err != nil {
		return "", fmt.Errorf("failed to read the module proxy's answer: %w", err)
	}
	return info.Version, nil
}

// proxyGet fetches url from a module proxy and reads the answer with read. A proxy refusing
// the path or version (403, 404, 410) is errNotFound.
func proxyGet(ctx context.Context, client *http.Client, url string, read func([]byte) (string, error)) (string, error) {
	if !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://") {
		return "", errNotFound // a file:// proxy has no answer for a revision
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", fmt.Errorf("failed to ask the module proxy: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("failed to ask the module proxy: %w", err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound, http.StatusGone, http.StatusForbidden:
		return "", errNotFound
	default:
		return "", fmt.Errorf("the module proxy answered %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, pinInfoLimit))
	if err != nil {
		return "", fmt.Errorf("failed to read the module proxy's answer: %w", err)
	}
	return read(body)
}
