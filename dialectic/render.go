package dialectic

import (
	"fmt"
	"strings"
)

// Markdown renders a debate for a pull request comment: the request, both sides, the synthesis
// and, for a failure debate, the failing log's relevant lines in a code block that no line of the
// log can close. Texts from the change or the log are shown, never interpreted: they stay inside
// table cells or the code block.
func (rec *Record) Markdown() string {
	var b strings.Builder
	s := rec.Synthesis
	switch rec.Type {
	case Failure:
		r := rec.Failure
		fmt.Fprintf(&b, "## Failure debate: %s → **%s**\n\n", cell(r.Task), s.Resolution)
		fmt.Fprintf(&b, "`%s` failed %d times in a row with the same error (task `%s`).\n\n", cell(r.Task), len(r.Attempts), r.TaskID)
		b.WriteString("| attempt | when | commit | error fingerprint |\n| --- | --- | --- | --- |\n")
		for _, a := range r.Attempts {
			fmt.Fprintf(&b, "| %d | %s | %s | `%s` |\n", a.N, a.At.UTC().Format("2006-01-02 15:04Z"), shortSHA(a.Head), cell(a.Fingerprint))
		}
		if rec.FAdv != nil {
			fmt.Fprintf(&b, "\n**Advocate** (%s)\n- DIAGNOSIS: %s\n- FIX: %s\n- DIFF_FROM_PREVIOUS: %s\n", rec.By, cell(rec.FAdv.Diagnosis), cell(rec.FAdv.Fix), cell(rec.FAdv.DiffFromPrevious))
		}
		if rec.FCrit != nil {
			fmt.Fprintf(&b, "\n**Critic** (%s)\n- PATTERN: %s\n- BLIND_SPOT: %s\n- SHOULD_ESCALATE: %t\n", rec.By, cell(rec.FCrit.Pattern), cell(orElse(rec.FCrit.BlindSpot, "none")), rec.FCrit.ShouldEscalate)
		}
	case Planning:
		r := rec.Plan
		fmt.Fprintf(&b, "## Planning debate → **%s**\n\n", s.Resolution)
		fmt.Fprintf(&b, "Proposal (stakes: %s): %s\n", r.Stakes, cell(r.Proposal))
		if rec.PAdv != nil {
			fmt.Fprintf(&b, "\n**Advocate** (%s)\n- CLAIM: %s\n- SUPPORTS: %s\n- CONFIDENCE: %.2f\n", rec.By, cell(rec.PAdv.Claim), cell(orElse(strings.Join(rec.PAdv.Supports, "; "), "none")), rec.PAdv.Confidence)
		}
		if rec.PCrit != nil {
			fmt.Fprintf(&b, "\n**Critic** (%s)\n- OBJECTION: %s\n- RISKS: %s\n- COUNTER: %s\n- SEVERITY: %s\n", rec.By, cell(orElse(rec.PCrit.Objection, "none")), cell(orElse(strings.Join(rec.PCrit.Risks, "; "), "none")), cell(orElse(rec.PCrit.Counter, "none")), rec.PCrit.Severity)
		}
	}
	b.WriteString("\n**Synthesis**\n\n```\n")
	b.WriteString(strings.ReplaceAll(s.CSP(), "```", "'''"))
	b.WriteString("```\n")
	if s.JudgedBy != "" && len(s.JudgedBetween) > 0 {
		var between []string
		for _, r := range s.JudgedBetween {
			between = append(between, string(r))
		}
		last := len(between) - 1
		fmt.Fprintf(&b, "\nThe synthesis rules left this open between %s and %s; the orchestrator (%s) judged it.\n", strings.Join(between[:last], ", "), between[last], cell(s.JudgedBy))
	}
	if u := rec.Usage; u.Calls > 0 {
		fmt.Fprintf(&b, "\nModel calls: %d (%d prompt and %d completion tokens, $%.4f).\n", u.Calls, u.Prompt, u.Completion, u.CostUSD)
	}
	for _, n := range rec.Notes {
		fmt.Fprintf(&b, "\n> Note: %s\n", cell(n))
	}
	if rec.Type == Failure && len(rec.Failure.Log) > 0 {
		fence := "```"
		for strings.Contains(strings.Join(rec.Failure.Log, "\n"), fence) {
			fence += "`"
		}
		fmt.Fprintf(&b, "\n<details><summary>The failing log's relevant lines (untrusted output, %d lines)</summary>\n\n%stext\n%s\n%s\n\n</details>\n",
			len(rec.Failure.Log), fence, strings.Join(rec.Failure.Log, "\n"), fence)
	}
	return b.String()
}

// cell keeps a text on one line and unable to start Markdown structure or an HTML comment
// (a forged marker).
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "`", "'").Replace(s)
}

func shortSHA(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}
