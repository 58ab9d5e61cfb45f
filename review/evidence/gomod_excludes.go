package evidence

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/tools/go/packages"
)

// A dependency the go command resolves at its latest version (one the go.mod does not require,
// as in a tree written for GOPATH) can be a version whose go.mod declares another module path
// (a repository renamed, "module declares its path as: github.com/new/name"): the go command
// then stops the whole resolution. The analysis copy of go.mod excludes such a version and the
// resolution runs again, within the same time limit, so the next version is taken, the one the
// tree could have been written against.

// maxExcludeRounds bounds the resolutions run again after excluding versions.
const maxExcludeRounds = 3

// declaredPath is the go command's complaint about a module version whose go.mod declares
// another path.
var declaredPath = regexp.MustCompile(`(\S+)@(v\S+): parsing go\.mod:\s*module declares its path as: (\S+)\s+but was required as: (\S+)`)

// addMismatches keeps the module versions of msg whose go.mod declares another path.
func (r *resolution) addMismatches(msg string) {
	for _, m := range declaredPath.FindAllStringSubmatch(msg, -1) {
		v := module.Version{Path: m[1], Version: m[2]}
		if m[1] != m[4] || module.Check(v.Path, v.Version) != nil {
			continue
		}
		r.mismatched = append(r.mismatched, v)
	}
}

// resolveExcluding is resolve, run again while the go command refuses a version whose go.mod
// declares another path, with that version excluded in the analysis copy of go.mod at
// goModCopy. The notes say which versions were excluded.
func resolveExcluding(ctx context.Context, cfg *packages.Config, m ModuleSettings, patterns []string, goModCopy string) (*resolution, []string, error) {
	deadline := time.Now().Add(m.Timeout)
	var notes []string
	for round := 0; ; round++ {
		res, err := resolve(ctx, cfg, m, patterns)
		if err != nil || res.timedOut || len(res.mismatched) == 0 || round == maxExcludeRounds {
			return res, notes, err
		}
		added, err := excludeVersions(goModCopy, res.mismatched)
		if err != nil || len(added) == 0 {
			return res, notes, err
		}
		for _, v := range added {
			notes = append(notes, fmt.Sprintf("%s %s declares another module path in its go.mod: excluded, so the newest other version was taken", v.Path, v.Version))
		}
		if m.Timeout = time.Until(deadline); m.Timeout <= 0 {
			return &resolution{timedOut: true, problems: map[string]string{}}, notes, nil
		}
	}
}

// excludeVersions adds exclude directives for vs to the go.mod at name and returns those it
// added.
func excludeVersions(name string, vs []module.Version) ([]module.Version, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("failed to read the analysis copy of go.mod: %w", err)
	}
	f, err := modfile.Parse(name, data, nil)
	if err != nil {
		return nil, fmt.Errorf("failed to parse the analysis copy of go.mod: %w", err)
	}
	have := map[module.Version]bool{}
	for _, e := range f.Exclude {
		have[e.Mod] = true
	}
	var added []module.Version
	for _, v := range vs {
		if have[v] {
			continue
		}
		have[v] = true
		if err := f.AddExclude(v.Path, v.Version); err != nil {
			return nil, fmt.Errorf("failed to exclude %s %s: %w", v.Path, v.Version, err)
		}
		added = append(added, v)
	}
	if len(added) == 0 {
		return nil, nil
	}
	out, err := f.Format()
	if err != nil {
		return nil, fmt.Errorf("failed to format the analysis copy of go.mod: %w", err)
	}
	if err := os.WriteFile(name, out, 0o600); err != nil {
		return nil, fmt.Errorf("failed to write the analysis copy of go.mod: %w", err)
	}
	return added, nil
}
