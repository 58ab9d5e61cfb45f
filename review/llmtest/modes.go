package llmtest

import (
	"strings"
	"testing"
)

// CallModes are the two ways of asking the model, as the llm section of a debatebot.yml says
// them: one call for the panel per phase (the default, no configuration), and one call per agent
// and phase.
var CallModes = []struct{ Name, Config string }{
	{"panel", ""},
	{"agent", "llm:\n  calls: agent\n"},
}

// CheckAskedAs fails t unless reqs asked the model the way config (a debatebot.yml) says: at
// least one call for the panel (the default; the call that seats the panel and writes its
// openings is one, and the only one when the openings agree), or none (llm.calls: agent) and
// some of one agent. The moderator's own call is neither.
func CheckAskedAs(t testing.TB, reqs []*Request, config string) {
	t.Helper()
	panel, agent := 0, 0
	for _, r := range reqs {
		switch r.ResponseFormat.JSONSchema.Name {
		case PanelSchema, PanelSeatSchema:
			panel++
		case ModeratorSchema:
		default:
			agent++
		}
	}
	if perAgent := strings.Contains(config, "calls: agent"); (perAgent && (panel > 0 || agent == 0)) || (!perAgent && panel == 0) {
		t.Errorf("%d calls for the panel and %d of one agent under %q", panel, agent, config)
	}
}
