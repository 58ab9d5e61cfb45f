package compare

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// The comparison's name tables are well-formed: the words of protection are lower case and in
// one class each, and no list names a name twice.
func TestNameTablesWellFormed(t *testing.T) {
	classes := map[string]map[string]bool{"strong": strongProtect, "weak": weakProtect, "not": notProtect}
	seen := map[string]string{}
	for _, c := range slices.Sorted(maps.Keys(classes)) {
		for w := range classes[c] {
			if w != strings.ToLower(w) {
				t.Errorf("%sProtect: %q is not lower case (nameWords lowers the words it matches)", c, w)
			}
			if prev, ok := seen[w]; ok {
				t.Errorf("%q is both %s and %s", w, prev, c)
			}
			seen[w] = c
		}
	}
	seenSuffix := map[string]bool{}
	for _, s := range ctxSuffixes {
		if seenSuffix[s] {
			t.Errorf("ctxSuffixes names %q twice", s)
		}
		seenSuffix[s] = true
	}
}
