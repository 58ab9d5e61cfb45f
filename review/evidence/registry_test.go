package evidence

import (
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/external"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

func TestRegistryHasEachAnalyzerOnceAndEachExternalToolAsItsOwn(t *testing.T) {
	seen := map[string]int{}
	var names []string
	for _, a := range DefaultAnalyzers() {
		seen[a.Name()]++
		names = append(names, a.Name())
	}
	for n, k := range seen {
		if k > 1 {
			t.Errorf("analyzer %s is registered %d times", n, k)
		}
	}
	for _, tool := range external.DefaultTools() {
		if seen[tool.Name()] != 1 {
			t.Errorf("external tool %s is not registered as an analyzer of its own: %s", tool.Name(), strings.Join(names, ", "))
		}
	}
	for _, n := range []string{"secrets", "go-ast", "go vet", "staticcheck", "go linter", "gosec", "debatebot", "lines", "removed", "timers", "nullish-check", "prompt-injection", "change"} {
		if seen[n] != 1 {
			t.Errorf("analyzer %s is not registered: %s", n, strings.Join(names, ", "))
		}
	}
	want := "secrets, go-ast, go vet, staticcheck, go linter, gosec, debatebot, bandit, pyflakes, pylint, eslint, shellcheck, cppcheck, lines, removed, timers, nullish-check, prompt-injection, change"
	if got := strings.Join(names, ", "); got != want {
		t.Errorf("analyzers run in the order %s, want %s", got, want)
	}
}

func TestToolAnalyzerOfAnUnknownToolReportsNothing(t *testing.T) {
	c := &change.Change{Files: []*change.File{{Path: "a.py", Status: change.StatusAdded, HasContent: true, Content: []byte("import pickle\npickle.loads(x)\n")}}}
	found, notes, err := scan.GatherWithNotes(t.Context(), c, []scan.Analyzer{toolAnalyzer{tool: "nosuchtool"}})
	if err != nil || len(found) != 0 || len(notes) != 0 {
		t.Errorf("found %v, notes %v, err %v", found, notes, err)
	}
}
