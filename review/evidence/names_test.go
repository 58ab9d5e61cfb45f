package evidence

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// The name tables are well-formed: every sink has a known kind and a name, no sanitiser entry
// matches nothing, and no list names a name twice (the comparison's tables are checked in
// review/evidence/compare).
func TestNameTablesWellFormed(t *testing.T) {
	for _, k := range goSinks {
		if sinkRisk[k.Kind] == "" || k.Pkg == "" || len(k.Names) == 0 || k.Arg < 0 {
			t.Errorf("goSinks: %+v", k)
		}
		noDuplicates(t, "goSinks "+k.Pkg+"."+k.Recv, k.Names)
	}
	for _, s := range goSanitisers {
		if len(s.Pkgs) == 0 || len(s.Names)+len(s.Prefixes)+len(s.Contains) == 0 {
			t.Errorf("goSanitisers: %+v matches nothing", s)
		}
		for _, k := range s.Protects {
			if sinkRisk[k] == "" {
				t.Errorf("goSanitisers: %+v protects an unknown sink %q", s, k)
			}
		}
	}
	for _, p := range guardPrefixes {
		if p != strings.ToLower(p) {
			t.Errorf("guardPrefixes: %q is not lower case", p)
		}
	}
	for name, l := range map[string][]string{"guardPrefixes": guardPrefixes, "txWriteMethods": txWriteMethods,
		"dbPackageElems": dbPackageElems, "dbPackageHints": dbPackageHints} {
		noDuplicates(t, name, l)
	}
}

func noDuplicates(t *testing.T, name string, l []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, s := range l {
		if seen[s] {
			t.Errorf("%s names %q twice", name, s)
		}
		seen[s] = true
	}
}

// sanitiserOf reads goSanitisers: by exact name, by prefix and by substring, functions only where
// the entry says so, and the sinks protected (nil: any); a name of another package, or a
// method where only functions count, is no sanitiser.
func TestSanitiserOf(t *testing.T) {
	for _, c := range []struct {
		pkg, recv, name string
		ok              bool
		protects        []string // nil: any sink
	}{
		{"path/filepath", "", "Clean", true, []string{sinkFile, sinkRedirect, sinkURL}},
		{"path/filepath", "", "Join", false, nil},
		{"path/filepath", "T", "Clean", false, nil}, // functions only
		{"strings", "", "HasPrefix", true, nil},
		{"net/url", "URL", "Hostname", true, []string{sinkRedirect, sinkURL}},
		{"net/url", "", "QueryEscape", true, []string{sinkHTML, sinkRedirect, sinkURL}},
		{"net/netip", "Addr", "IsLoopback", true, []string{sinkURL}}, // by prefix
		{"net", "", "LookupHost", true, []string{sinkURL}},
		{"html/template", "", "HTMLEscapeString", true, []string{sinkHTML}}, // by substring
		{"text/template", "", "Execute", false, nil},
		{"strconv", "", "ParseInt", true, nil},
		{"strconv", "", "Itoa", false, nil},
		{"os/exec", "", "LookPath", true, nil},
		{"example.com/app", "", "Clean", false, nil},
	} {
		ks, ok := sanitiserOf(c.pkg, c.recv, c.name)
		var got []string
		if ks != nil {
			got = slices.Sorted(maps.Keys(ks))
		}
		if ok != c.ok || !slices.Equal(got, c.protects) {
			t.Errorf("sanitiserOf(%q, %q, %q) = %v, %v; want %v, %v", c.pkg, c.recv, c.name, got, ok, c.protects, c.ok)
		}
	}
}
