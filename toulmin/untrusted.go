package toulmin

// RulePromptInjection is the evidence rule of text in the change addressed to the reviewer (an
// AI reviewer, the bot, "ignore previous instructions"...), wherever it was found: title,
// description, file names, code, comments, commit messages. Any such evidence escalates the debate
// to a human, whatever the agents voted: the bot never approves a change that tries to instruct it.
const RulePromptInjection = "prompt-injection"

// injections quotes each piece of evidence that the change addresses the reviewer, with its
// place, for the decision's escalation reasons. The analyzer quotes the text redacted.
func (r *run) injections() []string {
	var out []string
	for _, e := range r.t.Evidence {
		if e.Rule != RulePromptInjection || e.Mitigates != "" {
			continue
		}
		q := e.Message
		if e.Path != "" {
			q = e.Location() + ": " + q
		}
		out = append(out, q)
	}
	return out
}
