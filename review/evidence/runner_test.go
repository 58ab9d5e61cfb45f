package evidence

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

var basicFiles = []string{"app/app.go", "broken/broken.go"}

func runBasic(t testing.TB) *Result {
	t.Helper()
	res, err := Run(context.Background(), Options{BaseDir: "testdata/basic/base", HeadDir: "testdata/basic/head", Files: basicFiles})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func TestRunReportsNewFindingsOnly(t *testing.T) {
	res := runBasic(t)
	got := map[string]scan.Finding{}
	for _, f := range res.New {
		got[fmt.Sprintf("%s %s:%d", f.Rule, f.Path, f.Line)] = f
	}
	want := map[string]string{
		"lostcancel app/app.go:39":      "cancel function returned by context.WithTimeout should be called",
		"nilness app/app.go:64":         "nil dereference in field selection", // unchanged line; its guard was removed
		"copylocks app/app.go:31":       "Snapshot passes lock by value",
		"httpresponse app/app.go:48":    "using resp before checking for errors",
		"SA5001 app/app.go:48":          "should check error returned from c.Get() before deferring resp.Body.Close()",
		"SA5007 app/app.go:27":          "infinite recursive call",
		"copylocks broken/broken.go:12": "Use passes lock by value",                                                                    // in a package that does not type-check
		"gosec:G118 app/app.go:39":      "context cancellation function returned by WithCancel/WithTimeout/WithDeadline is not called", // gosec sees the lost cancel too
	}
	for k, msg := range want {
		f, ok := got[k]
		if !ok {
			t.Errorf("missing new finding %s (%s); got %v", k, msg, keys(got))
			continue
		}
		if !strings.Contains(f.Message, msg) {
			t.Errorf("%s: message %q, want it to contain %q", k, f.Message, msg)
		}
	}
	for k, f := range got {
		if f.Func == "Old" {
			t.Errorf("pre-existing finding reported as new: %s %s", k, f.Message)
		}
	}
	if len(res.New) != len(want) {
		t.Errorf("%d new findings, want %d: %v", len(res.New), len(want), keys(got))
	}
	if res.Preexisting != 2 {
		t.Errorf("Preexisting = %d, want 2 (the nil dereference in Old, noctx's http.Get in Fetch)", res.Preexisting)
	}
	if f := got["nilness app/app.go:64"]; f.Func != "Describe" || f.Source != "go vet" || f.Severity != voting.SeverityHigh {
		t.Errorf("nilness finding = %+v, want func Describe, source go vet, severity high", f)
	}
}

func TestRunDegradesPackagesThatDoNotTypeCheck(t *testing.T) {
	res := runBasic(t)
	if len(res.Degraded) != 1 || res.Degraded[0].Package != "example.com/basic/broken" {
		t.Fatalf("Degraded = %+v, want only example.com/basic/broken", res.Degraded)
	}
	if !strings.Contains(res.Degraded[0].Reason, `cannot use "zero"`) {
		t.Errorf("reason %q does not name the type error", res.Degraded[0].Reason)
	}
	if strings.Join(res.Packages, " ") != "example.com/basic/app example.com/basic/broken" {
		t.Errorf("Packages = %v", res.Packages)
	}
}

func TestRunWithMissingDependencyDegrades(t *testing.T) {
	dir := t.TempDir()
	changetest.Write(t, dir+"/go.mod", "module example.com/dep\n\ngo 1.22\n\nrequire example.com/nowhere v1.0.0\n")
	changetest.Write(t, dir+"/p/p.go", "package p\n\nimport (\n\t\"context\"\n\t\"time\"\n\n\t\"example.com/nowhere\"\n)\n\nfunc F(ctx context.Context) {\n\tctx, _ = context.WithTimeout(ctx, time.Second)\n\tnowhere.Use(ctx)\n}\n")
	rep, err := AnalyzeTree(context.Background(), dir, []string{"p/p.go"}, nil)
	if err != nil {
		t.Fatalf("AnalyzeTree: %v", err)
	}
	if len(rep.Degraded) == 0 {
		t.Fatalf("no degraded package with a dependency that cannot be fetched")
	}
	found := false
	for _, f := range rep.Findings {
		found = found || f.Rule == "lostcancel"
	}
	if !found {
		t.Errorf("lostcancel not found in the degraded package: %+v (degraded: %+v)", rep.Findings, rep.Degraded)
	}
}

func TestRunAnalysesTestFilesWhenTheChangeHasThem(t *testing.T) {
	base, head := t.TempDir(), t.TempDir()
	for _, dir := range []string{base, head} {
		changetest.Write(t, dir+"/go.mod", "module example.com/tests\n\ngo 1.22\n")
		changetest.Write(t, dir+"/p/p.go", "package p\n\nimport \"sync\"\n\n// Box locks.\ntype Box struct{ mu sync.Mutex }\n\n// Take copies b.\nfunc Take(b Box) {}\n")
	}
	changetest.Write(t, base+"/p/p_test.go", "package p\n\nimport \"testing\"\n\nfunc TestTake(t *testing.T) {\n\tt.Log(\"ok\")\n}\n")
	changetest.Write(t, head+"/p/p_test.go", "package p\n\nimport \"testing\"\n\nfunc TestTake(t *testing.T) {\n\tgo func() {\n\t\tt.Fatal(\"from a goroutine\")\n\t}()\n}\n")
	res, err := Run(context.Background(), Options{BaseDir: base, HeadDir: head, Files: []string{"p/p_test.go"}})
	if err != nil {
		t.Fatal(err)
	}
	// go vet's testinggoroutine and staticcheck's SA2002 both see the t.Fatal from a goroutine.
	var got []string
	for _, f := range res.New {
		got = append(got, fmt.Sprintf("%s %s:%d %s", f.Rule, f.Path, f.Line, f.Func))
	}
	if strings.Join(got, ", ") != "SA2002 p/p_test.go:6 TestTake, testinggoroutine p/p_test.go:7 TestTake" {
		t.Errorf("new = %q, want SA2002 and testinggoroutine in TestTake", got)
	}
	// The copied lock in p.go is in the package and in its test variant: one pre-existing finding.
	if res.Preexisting != 1 || len(res.Packages) != 1 {
		t.Errorf("preexisting %d packages %v, want 1 and [example.com/tests/p]", res.Preexisting, res.Packages)
	}
}

func TestCompareIgnoresLineShiftsAndRenamedIdentifiers(t *testing.T) {
	base := []scan.Finding{
		{Rule: "printf", Path: "a.go", Line: 10, Func: "F", Message: `fmt.Sprintf format %d has arg "x" of wrong type string`},
		{Rule: "nilness", Path: "a.go", Line: 20, Func: "G", Message: "nil dereference in field selection"},
	}
	head := []scan.Finding{
		{Rule: "printf", Path: "a.go", Line: 14, Func: "F", Message: `fmt.Sprintf format %d has arg "y" of wrong type string`},
		{Rule: "nilness", Path: "a.go", Line: 24, Func: "G", Message: "nil dereference in field selection"},
		{Rule: "nilness", Path: "a.go", Line: 30, Func: "G", Message: "nil dereference in field selection"},
		{Rule: "nilness", Path: "b.go", Line: 3, Func: "G", Message: "nil dereference in field selection"},
	}
	fresh, pre := Compare(base, head)
	if pre != 2 {
		t.Errorf("preexisting = %d, want 2", pre)
	}
	if len(fresh) != 2 || fresh[0].Line != 30 || fresh[1].Path != "b.go" {
		t.Errorf("fresh = %+v, want a.go:30 and b.go:3", fresh)
	}
}

func keys(m map[string]scan.Finding) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
