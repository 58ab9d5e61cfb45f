package review

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/toulmin"
)

// newFileDiff is the git diff that adds a file with the given content.
func newFileDiff(path, content string) string {
	content = strings.TrimPrefix(content, "\n")
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", path, path, path, len(lines))
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// changeOf parses diffs of new files given as path -> content.
func changeOf(t testing.TB, files map[string]string) *change.Change {
	t.Helper()
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		b.WriteString(newFileDiff(p, files[p]))
	}
	c, err := ParseDiff([]byte(b.String()), "test.diff")
	if err != nil {
		t.Fatalf("ParseDiff: %v", err)
	}
	return c
}

func mustParse(t testing.TB, diff string) *change.Change {
	t.Helper()
	c, err := ParseDiff([]byte(strings.TrimPrefix(diff, "\n")), "test.diff")
	if err != nil {
		t.Fatalf("ParseDiff: %v", err)
	}
	return c
}

func gather(t testing.TB, c *change.Change) []toulmin.Evidence {
	t.Helper()
	ev, err := scan.Gather(context.Background(), c, evidence.DefaultAnalyzers())
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	return ev
}

// found lists "path:line" of the evidence of one rule.
func found(ev []toulmin.Evidence, rule string) []string {
	var out []string
	for _, e := range ev {
		if e.Rule == rule {
			out = append(out, e.Location())
		}
	}
	sort.Strings(out)
	return out
}

func dump(ev []toulmin.Evidence) string {
	var b strings.Builder
	for _, e := range ev {
		fmt.Fprintf(&b, "  %s %s %s: %s\n", e.Severity, e.Rule, e.Location(), e.Message)
	}
	return b.String()
}

// Credentials that look real to the detector (and are not).
const (
	testAWSKey      = "AKIAZ5XQ3R7NP2LWK4TB"
	testGitHubToken = "ghp_8kZq2Lw9XbT4mR7vN1cY6pH3sJ0dF5gA2eUx"
)
