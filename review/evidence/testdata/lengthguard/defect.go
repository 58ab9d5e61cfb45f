package lengthguard

// strip removes the quotes or brackets around v; the length test does not cover the second
// comparison, which indexes an empty v.
func strip(v string) string {
	if len(v) >= 2 && v[0] == '"' || v[0] == '[' {
		v = v[1 : len(v)-1]
	}
	return v
}

// matches compares a pattern with a name; a name shorter than the pattern is indexed past its end.
func matches(patterns []string, name string) bool {
	for _, p := range patterns {
		i := 0
		for ; i < len(p); i++ {
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

// sameTopic matches a topic filter token by token; a filter that is a prefix of the topic matches.
func sameTopic(filter, topic []string) bool {
	if len(filter) > len(topic) {
		return false
	}
	for i, f := range filter {
		if f != "+" && f != topic[i] {
			return false
		}
	}
	return true
}
