package evidence

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

// The maintained linters report each defect of testdata/linters at its line, in words, and
// nothing on the correct variants, on Close and os.Remove left unchecked (golangci-lint's default
// exclusions) or in tests.
func TestMaintainedLintersFireOnDefectsOnly(t *testing.T) {
	rep, err := AnalyzeTree(context.Background(), "testdata/linters", []string{"linters/linters.go", "linters/linters_test.go"}, nil)
	if err != nil {
		t.Fatalf("AnalyzeTree: %v", err)
	}
	if len(rep.Degraded) != 0 {
		t.Fatalf("degraded: %+v", rep.Degraded)
	}
	var got []string
	by := map[string]scan.Finding{}
	for _, f := range rep.Findings {
		if f.Source != rules.AnalyzerGoLinter {
			continue
		}
		k := fmt.Sprintf("%s %s:%d", f.Rule, f.Path, f.Line)
		got = append(got, k)
		by[k] = f
	}
	sort.Strings(got)
	sameFindings(t, got, wantMarkers(t, "testdata/linters"))
	words := map[string]string{
		"bodyclose linters/linters.go:20":     "line 20: the HTTP response that `c.Do(…)` returns is not closed on every path",
		"noctx linters/linters.go:44":         "net/http.Get takes no context",
		"sqlclosecheck linters/linters.go:53": "are not closed on every path",
		"rowserrcheck linters/linters.go:53":  "rows.Err() is never checked",
		"errcheck linters/linters.go:102":     "the error that `json.Unmarshal` returns is dropped",
		"nilaway linters/linters.go:131":      "linters.go:131",
	}
	for k, w := range words {
		if f := by[k]; !strings.Contains(f.Message, w) {
			t.Errorf("%s: message %q, want it to contain %q", k, f.Message, w)
		}
	}
}

// Every maintained linter is a check of its own, under its name, with a fix and a severity.
func TestMaintainedLintersAreChecks(t *testing.T) {
	for _, name := range []string{"bodyclose", "sqlclosecheck", "rowserrcheck", "noctx", "errcheck", "nilaway"} {
		var c *rules.Check
		for i := range checks {
			if checks[i].Rule == name {
				c = &checks[i]
			}
		}
		if c == nil {
			t.Errorf("no check %s", name)
			continue
		}
		if c.Source != rules.AnalyzerGoLinter || c.Fix == "" || c.Severity == "" || c.URL == "" {
			t.Errorf("check %s = %+v, want source %q with a fix, severity and URL", name, *c, rules.AnalyzerGoLinter)
		}
	}
}

// A resource opened and left open on a path to a return is reported at its opening, in words;
// not when it is closed on every path (deferred, in a deferred literal, before returning), returned,
// stored, handed to the package's code or a goroutine, when the open failed, on a path that
// panics, for a decompressor closed on its main path, or in tests.
func TestUnclosedResource(t *testing.T) {
	got, by := analyzeOwn(t, "testdata/unclosed", "unclosed/unclosed.go", "unclosed/unclosed_test.go")
	sameFindings(t, got, wantMarkers(t, "testdata/unclosed"))
	words := map[string]string{
		"unclosed/unclosed.go:17": "line 17: `os.Open(…)` opens a *os.File that is not closed on every path: the path that returns at line 22 leaves it open",
		"unclosed/unclosed.go:45": "OnlyUsed never closes it, returns it, stores it nor hands it on; each call leaks a file descriptor",
		"unclosed/unclosed.go:58": "its result is dropped",
		"unclosed/unclosed.go:63": "`gzip.NewReader(…)` opens a *compress/gzip.Reader",
	}
	for k, w := range words {
		if f := by[RuleUnclosedResource+" "+k]; !strings.Contains(f.Message, w) {
			t.Errorf("%s: message %q, want it to contain %q", k, f.Message, w)
		}
	}
}

// withoutLinters runs the test without the maintained linters (they have tests of their own),
// for tests that count every finding of other checks.
func withoutLinters(t *testing.T) {
	t.Helper()
	all := checks
	var rest []rules.Check
	for _, c := range all {
		if c.Source != rules.AnalyzerGoLinter {
			rest = append(rest, c)
		}
	}
	checks = rest
	t.Cleanup(func() { checks = all })
}

// In a package that does not type-check in full (a dependency missing from the module cache),
// the SSA-based linters still judge the functions that type-check, and those whose only ill-typed
// statements are calls that use none of the function's variables (a metrics call, left out); the
// others are built as declarations and not judged.
func TestSSALintersOnPartlyTypedPackage(t *testing.T) {
	rep, err := AnalyzeTree(context.Background(), "testdata/partial", []string{"partial/partial.go"}, nil)
	if err != nil {
		t.Fatalf("AnalyzeTree: %v", err)
	}
	typeErr := false
	for _, d := range rep.Degraded {
		for _, l := range linters {
			if strings.HasPrefix(d.Reason, l.a.Name+" did not run") {
				t.Errorf("degraded: %+v", d)
			}
		}
		typeErr = typeErr || strings.Contains(d.Reason, "type information incomplete")
	}
	if !typeErr {
		t.Fatalf("the package type-checked in full; the test needs one that does not: %+v", rep.Degraded)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.Source == rules.AnalyzerGoLinter {
			got = append(got, fmt.Sprintf("%s %s:%d", f.Rule, f.Path, f.Line))
		}
	}
	sort.Strings(got)
	sameFindings(t, got, wantMarkers(t, "testdata/partial"))
}

// nilaway is left out of a package over its budget of lines, and the report says so.
func TestNilawayBudget(t *testing.T) {
	dir := t.TempDir()
	changetest.Write(t, dir+"/go.mod", "module example.com/big\n\ngo 1.22\n")
	var b strings.Builder
	b.WriteString("package big\n\ntype Node struct{ Val int }\n\nfunc find() *Node { return nil }\n\n// Get dereferences what find returns.\nfunc Get() int { return find().Val }\n")
	for i := 0; i < nilawayMaxLines; i++ {
		fmt.Fprintf(&b, "// filler %d\n", i)
	}
	changetest.Write(t, dir+"/big/big.go", b.String())
	rep, err := AnalyzeTree(context.Background(), dir, []string{"big/big.go"}, nil)
	if err != nil {
		t.Fatalf("AnalyzeTree: %v", err)
	}
	for _, f := range rep.Findings {
		if f.Rule == "nilaway" {
			t.Errorf("nilaway ran over its budget: %+v", f)
		}
	}
	said := false
	for _, d := range rep.Degraded {
		said = said || strings.HasPrefix(d.Reason, "nilaway did not run") && strings.Contains(d.Reason, "over nilaway's budget of 3000")
	}
	if !said {
		t.Errorf("degraded = %+v, want nilaway left out over its budget", rep.Degraded)
	}
}
