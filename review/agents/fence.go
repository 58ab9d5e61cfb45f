package agents

import (
	"slices"
	"strconv"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/toulmin"
)

// untrustedFences are the names of the fences that hold data from the change in a prompt
// (prompts/context.tmpl, prompts/diff.tmpl and prompts/code.tmpl), and the agents' arguments that quote it
// (prompts/digest.tmpl and prompts/turn.tmpl), and a human's guidance at a checkpoint
// (prompts/instruction.tmpl), and a failing CI log or a proposal in a failure or planning debate
// (dialectic_llm.go): "<<<UNTRUSTED NAME" opens one, "UNTRUSTED NAME>>>"
// closes it.
var untrustedFences = []string{"TITLE", "QUESTION", "DESCRIPTION", "FILES", "EVIDENCE", "OMITTED", "DIFF", "CODE", "ARGUMENTS", "GUIDANCE",
	// The failure and planning debates' data (dialectic_llm.go).
	"TASK", "ATTEMPTS", "LOG", "CHANGED", "PROPOSAL", "ADVOCATE", "CRITIC"}

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
	return untrusted(quoteControl(p))
}

// quoteControl quotes a name with control characters or line breaks, so that it stays on its line.
func quoteControl(p string) string {
	if strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 }) {
		return strconv.Quote(p)
	}
	return p
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

// oneLine is text for one line of a prompt: whitespace runs (newlines included) become one
// space, at most n bytes are kept, and it cannot close its fence.
func oneLine(s string, n int) string {
	return untrusted(scan.Clip(strings.Join(strings.Fields(s), " "), n))
}

// untrustedArguments returns the arguments as a prompt shows them in full: every text a model
// wrote may quote the change, so none can close its fence.
func untrustedArguments(args []toulmin.Argument) []toulmin.Argument {
	out := make([]toulmin.Argument, len(args))
	for i, a := range args {
		a.Claim, a.Warrant, a.Rebuttal = untrusted(a.Claim), untrusted(a.Warrant), untrusted(a.Rebuttal)
		a.Steelman, a.Limit = untrusted(a.Steelman), untrusted(a.Limit)
		a.Qualifier.Text = untrusted(a.Qualifier.Text)
		a.Grounds = slices.Clone(a.Grounds)
		for j := range a.Grounds {
			a.Grounds[j].Path, a.Grounds[j].Text = untrustedName(a.Grounds[j].Path), untrusted(a.Grounds[j].Text)
		}
		a.Actions = slices.Clone(a.Actions)
		for j := range a.Actions {
			a.Actions[j].Path, a.Actions[j].Text = untrustedName(a.Actions[j].Path), untrusted(a.Actions[j].Text)
		}
		a.Backing = slices.Clone(a.Backing)
		for j := range a.Backing {
			a.Backing[j].Reference, a.Backing[j].Evidence = untrusted(a.Backing[j].Reference), untrusted(a.Backing[j].Evidence)
		}
		out[i] = a
	}
	return out
}
