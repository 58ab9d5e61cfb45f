package compare

import (
	"regexp"
	"slices"
	"strings"
)

// A term of a condition read as a test of one value: `not os.path.isfile(p)` is the predicate
// os.path.isfile of p, negated; `path.is_dir()` is the predicate .is_dir of path.
var (
	predicateCall   = regexp.MustCompile(`^(not\s+|!\s*)?([A-Za-z_][\w.]*)\s*\(\s*([^(),]+?)\s*\)$`)
	predicateMethod = regexp.MustCompile(`^(not\s+|!\s*)?(.+?)(\.[A-Za-z_]\w*)\s*\(\s*\)$`)
)

type predicateTerm struct {
	negated   bool
	predicate string
	arg       string
}

func readPredicate(term string) (predicateTerm, bool) {
	term = strings.TrimSpace(term)
	if m := predicateCall.FindStringSubmatch(term); m != nil && knownPredicate(m[2]) {
		return predicateTerm{negated: m[1] != "", predicate: m[2], arg: termKey(m[3])}, true
	}
	if m := predicateMethod.FindStringSubmatch(term); m != nil && knownPredicate(m[3]) {
		return predicateTerm{negated: m[1] != "", predicate: m[3], arg: termKey(m[2])}, true
	}
	return predicateTerm{}, false
}

func knownPredicate(predicate string) bool {
	if predicateImplies[predicate] != nil {
		return true
	}
	for _, implied := range predicateImplies {
		if slices.Contains(implied, predicate) {
			return true
		}
	}
	return false
}

// termImplies reports whether term a being true makes term b true, by predicateImplies: both
// test the same value, and a's predicate implies b's (or, both negated, b's implies a's).
func termImplies(a, b string) bool {
	pa, ok := readPredicate(a)
	if !ok {
		return false
	}
	pb, ok := readPredicate(b)
	if !ok || pa.arg != pb.arg || pa.negated != pb.negated {
		return false
	}
	if pa.negated {
		pa, pb = pb, pa
	}
	return slices.Contains(predicateImplies[pa.predicate], pb.predicate)
}

// redundantDrop reports whether a term dropped from a condition said nothing the terms kept do
// not: a dropped disjunct that implies a kept one, a dropped conjunct implied by a kept one.
func redundantDrop(op, dropped string, kept []string) bool {
	for _, k := range kept {
		if op == "or" && termImplies(dropped, k) || op == "and" && termImplies(k, dropped) {
			return true
		}
	}
	return false
}
