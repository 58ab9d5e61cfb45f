package review

import (
	"strconv"
	"strings"

	"github.com/debatebot/debatebot/toulmin"
)

// untrustedFences are the names of the fences that hold data from the change in a prompt
// (prompts/context.tmpl and prompts/diff.tmpl): "<<<UNTRUSTED NAME" opens one, "UNTRUSTED NAME>>>"
// closes it.
var untrustedFences = []string{"TITLE", "QUESTION", "DESCRIPTION", "FILES", "EVIDENCE", "OMITTED", "DIFF"}

// fenceBreakers are the texts that would open or close an untrusted fence.
var fenceBreakers = func() *strings.Replacer {
	pairs := []string{"<<<UNTRUSTED", "<< <UNTRUSTED"}
	for _, name := range untrustedFences {
		pairs = append(pairs, "UNTRUSTED "+name+">>>", "UNTRUSTED "+name+"> >>")
	}
	return strings.NewReplacer(pairs...)
}()

// untrusted keeps data from closing its fence.
func untrusted(s string) string { return fenceBreakers.Replace(s) }

// untrustedName is a file name as a prompt shows it: on one line (a name with control characters
// is quoted, as git quotes it) and unable to close its fence.
func untrustedName(p string) string {
	if strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 }) {
		p = strconv.Quote(p)
	}
	return untrusted(p)
}

// untrustedList applies untrusted to each entry.
func untrustedList(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = untrustedName(s)
	}
	return out
}

// untrustedEvidence returns the evidence as a prompt shows it: paths and messages quote the
// change, so they are kept on one line and inside their fence.
func untrustedEvidence(ev []toulmin.Evidence) []toulmin.Evidence {
	out := make([]toulmin.Evidence, len(ev))
	for i, e := range ev {
		e.Path, e.Message = untrustedName(e.Path), untrustedName(e.Message)
		out[i] = e
	}
	return out
}
