package evidence

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// wantMarkers reads the `// want: rule[, rule]` comments of the Go files under dir: the project's
// findings a test expects, as "rule path:line" with the path relative to dir.
func wantMarkers(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		rel, _ := filepath.Rel(dir, p)
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan(); line++ {
			_, want, ok := strings.Cut(sc.Text(), "// want: ")
			if !ok {
				continue
			}
			for _, rule := range strings.Split(want, ",") {
				out = append(out, fmt.Sprintf("%s %s:%d", strings.TrimSpace(rule), filepath.ToSlash(rel), line))
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// own lists the project's findings (SourceDebatebot) as "rule path:line", with the findings by
// that key.
func own(fs []Finding) ([]string, map[string]Finding) {
	var out []string
	by := map[string]Finding{}
	for _, f := range fs {
		if f.Source != SourceDebatebot {
			continue
		}
		k := fmt.Sprintf("%s %s:%d", f.Rule, f.Path, f.Line)
		out = append(out, k)
		by[k] = f
	}
	sort.Strings(out)
	return out, by
}

func sameFindings(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func analyzeOwn(t *testing.T, dir string, files ...string) ([]string, map[string]Finding) {
	t.Helper()
	rep, err := AnalyzeTree(context.Background(), dir, files, nil)
	if err != nil {
		t.Fatalf("AnalyzeTree: %v", err)
	}
	if len(rep.Degraded) != 0 {
		t.Fatalf("degraded: %+v", rep.Degraded)
	}
	return own(rep.Findings)
}

// Goroutines that send on an unbuffered channel: found when the creator can return without
// receiving (a timeout, an early return, one receive for many senders, a receiving loop left
// early, no receive at all); not when the channel is buffered, the send selects on ctx.Done(),
// every path receives, the channel is closed instead, escapes, is made per iteration, or the
// function panics rather than returns. Test files are not judged.
func TestGoroutineLeak(t *testing.T) {
	got, by := analyzeOwn(t, "testdata/leak", "leak/leak.go", "leak/leak_test.go")
	sameFindings(t, got, wantMarkers(t, "testdata/leak"))
	f := by[RuleGoroutineLeak+" leak/leak.go:18"]
	if f.Func != "Timeout" || f.Severity != SeverityHigh || f.Topic != TopicResource ||
		!strings.Contains(f.Message, "ch, an unbuffered channel made at line 17, but Timeout can return at line 26 without receiving") {
		t.Errorf("Timeout finding = %+v", f)
	}
	if f := by[RuleGoroutineLeak+" leak/leak.go:44"]; !strings.Contains(f.Message, "receives from it once") {
		t.Errorf("FirstOfMany finding = %+v", f)
	}
	if f := by[RuleGoroutineLeak+" leak/leak.go:53"]; !strings.Contains(f.Message, "can return at line 57 after receiving from only some of them") {
		t.Errorf("FanIn finding = %+v", f)
	}
}
