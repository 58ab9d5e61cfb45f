package lengthguard

// strip removes the quotes or brackets around v; the length test covers both comparisons.
func strip(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '[') {
		v = v[1 : len(v)-1]
	}
	return v
}

// empty reports whether v is empty or a comment: || after a failed length test is safe.
func empty(v string) bool {
	return len(v) == 0 || v[0] == '#'
}

// matches compares a pattern with a name; the loop is bounded by both lengths.
func matches(patterns []string, name string) bool {
	for _, p := range patterns {
		i := 0
		for ; i < len(p) && i < len(name); i++ {
			if p[i] == '?' || p[i] != name[i] {
				break
			}
		}
		if i == len(p) {
			return true
		}
	}
	return false
}

// sameTopic matches a topic filter token by token; the lengths must be equal.
func sameTopic(filter, topic []string) bool {
	if len(filter) != len(topic) {
		return false
	}
	for i, f := range filter {
		if f != "+" && f != topic[i] {
			return false
		}
	}
	return true
}

// equalKeys compares two fixed-size keys, whose type fixes both lengths.
func equalKeys(a, b [16]byte) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// diff counts the positions where got differs from the copy it built with the same length.
func diff(want []int) int {
	got := make([]int, len(want))
	copy(got, want)
	n := 0
	for i, w := range want {
		if w != got[i] {
			n++
		}
	}
	return n
}

// hasPrefixFold reports whether s starts with prefix, ignoring ASCII case: a prefix match is
// what the name says.
func hasPrefixFold(s, prefix []byte) bool {
	if len(prefix) > len(s) {
		return false
	}
	for i, c := range prefix {
		if c != s[i] && c != s[i]+'a'-'A' {
			return false
		}
	}
	return true
}
