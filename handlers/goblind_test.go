package handlers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A pull request that breaks its go.mod hides its package from the type-checked analysis: that is
// a finding at the go.mod line, the decision is not an approval, and nothing the App publishes
// names a directory of the host (the trees, the analysis copies, the cache).
func TestBlindingPullRequestIsAFindingWithoutHostPaths(t *testing.T) {
	a, _ := treesAppFrom(t, filepath.Join("testdata", "goblind", "head"), nil)
	tr, dec := a.debate("pull_request.opened.json", "d-b1")
	if !strings.Contains(tr, "| `go.mod:5` | analysis-blinded | security | the change stops the type-checked analysis of example.com/shop/api (api/), which the base analysed: not loaded: ") {
		t.Errorf("the transcript lacks the finding at go.mod:5:\n%s", tr)
	}
	if !strings.Contains(dec, "go.mod:5: undo what stops the package from loading") || strings.Contains(dec, "decision: approve") {
		t.Errorf("the decision does not require the package to load again:\n%s", dec)
	}
	published := []string{tr}
	for _, c := range a.gh.CommentsOn("acme/shop#7") {
		published = append(published, c.Body)
	}
	for _, r := range a.gh.Checks("acme/shop") {
		published = append(published, r.Summary, r.Title)
	}
	for _, c := range a.gh.Calls() {
		published = append(published, c.Body)
	}
	tmp := filepath.Clean(os.TempDir()) + string(filepath.Separator)
	for _, p := range published {
		if i := strings.Index(p, tmp); i >= 0 {
			t.Errorf("a host path is published: %q", p[max(0, i-100):min(len(p), i+200)])
		}
	}
}
