package llmtest

// CallModes are the two ways of asking the model, as the llm section of a debatebot.yml says
// them: one call for the panel per phase (the default, no configuration), and one call per agent
// and phase.
var CallModes = []struct{ Name, Config string }{
	{"panel", ""},
	{"agent", "llm:\n  calls: agent\n"},
}
