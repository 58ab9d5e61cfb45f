package review_test

import (
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/review/reviewtest"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// A Go source file and its test, as a deleted pair or halves of a change.
const (
	deletedPingGo = `diff --git a/api/ping.go b/api/ping.go
deleted file mode 100644
--- a/api/ping.go
+++ /dev/null
@@ -1,5 +0,0 @@
-package api
-
-// Ping checks that the server answers.
-func (c *Client) Ping() error { return nil }
-
`
	deletedPingTest = `diff --git a/api/ping_test.go b/api/ping_test.go
deleted file mode 100644
--- a/api/ping_test.go
+++ /dev/null
@@ -1,9 +0,0 @@
-package api
-
-import "testing"
-
-func TestPing(t *testing.T) {
-	if err := New().Ping(); err != nil {
-		t.Fatal(err)
-	}
-}
`
)

func TestTestDeletedOnlyWhenItsCodeRemains(t *testing.T) {
	tests := map[string]struct {
		diff string
		want []string
	}{
		"test file deleted with the file it tested": {diff: deletedPingGo + deletedPingTest},
		"test file deleted with the function it called": {diff: `diff --git a/api/client.go b/api/client.go
--- a/api/client.go
+++ b/api/client.go
@@ -3,8 +3,5 @@ package api
 // Client talks to the API.
 type Client struct{}
 
-// Ping checks that the server answers.
-func (c *Client) Ping() error { return nil }
-
 // Close releases the client.
 func (c *Client) Close() error { return nil }
` + deletedPingTest},
		"python test module deleted with its module": {diff: `diff --git a/shop/coupons.py b/shop/coupons.py
deleted file mode 100644
--- a/shop/coupons.py
+++ /dev/null
@@ -1,2 +0,0 @@
-def apply_coupon(total, code):
-    return total
diff --git a/tests/test_coupons.py b/tests/test_coupons.py
deleted file mode 100644
--- a/tests/test_coupons.py
+++ /dev/null
@@ -1,2 +0,0 @@
-def test_apply():
-    assert apply_coupon(10, "X") == 10
`},
		"test moved to another file": {diff: deletedPingTest + `diff --git a/api/client_test.go b/api/client_test.go
--- a/api/client_test.go
+++ b/api/client_test.go
@@ -5,3 +5,9 @@ import "testing"
 func TestNew(t *testing.T) {
 	_ = New()
 }
+
+func TestPing(t *testing.T) {
+	if err := New().Ping(); err != nil {
+		t.Fatal(err)
+	}
+}
`},
		"test file renamed": {diff: `diff --git a/api/ping_test.go b/api/health_test.go
similarity index 100%
rename from api/ping_test.go
rename to api/health_test.go
`},
		"test function removed with its function": {diff: `diff --git a/api/client.go b/api/client.go
--- a/api/client.go
+++ b/api/client.go
@@ -3,8 +3,5 @@ package api
 // Client talks to the API.
 type Client struct{}
 
-// Ping checks that the server answers.
-func (c *Client) Ping() error { return nil }
-
 // Close releases the client.
 func (c *Client) Close() error { return nil }
diff --git a/api/client_test.go b/api/client_test.go
--- a/api/client_test.go
+++ b/api/client_test.go
@@ -5,7 +5,3 @@ import "testing"
 func TestClose(t *testing.T) {
 	_ = New().Close()
 }
-
-func TestPing(t *testing.T) {
-	_ = New().Ping()
-}
`},
		"test function removed while its code remains": {diff: `diff --git a/api/client_test.go b/api/client_test.go
--- a/api/client_test.go
+++ b/api/client_test.go
@@ -5,7 +5,3 @@ import "testing"
 func TestClose(t *testing.T) {
 	_ = New().Close()
 }
-
-func TestPing(t *testing.T) {
-	_ = New().Ping()
-}
`, want: []string{"api/client_test.go:7"}},
		"test file deleted while its code remains": {diff: deletedPingTest, want: []string{"api/ping_test.go:5"}},
		"test helper file deleted": {diff: `diff --git a/api/helpers_test.go b/api/helpers_test.go
deleted file mode 100644
--- a/api/helpers_test.go
+++ /dev/null
@@ -1,5 +0,0 @@
-package api
-
-func newTestClient(t *testing.T) *Client {
-	return New()
-}
`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ev := reviewtest.Gather(t, reviewtest.MustParse(t, tc.diff))
			if got := reviewtest.Found(ev, rules.RuleTestDeleted); strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("test-deleted = %v, want %v\n%s", got, tc.want, reviewtest.Dump(ev))
			}
		})
	}
}

func TestUntestedChangeIsOneNoteWithoutALine(t *testing.T) {
	tests := map[string]struct {
		diff string
		want []string
	}{
		"two source files, no test": {diff: changetest.NewFileDiff("pkg/a.go", "package pkg\n\nfunc A() int { return 1 }\n") +
			changetest.NewFileDiff("pkg/b.go", "package pkg\n\nfunc B() int {\n\treturn 2\n}\n"), want: []string{"pkg/b.go"}},
		"comment-only change to a Go file": {diff: `diff --git a/pkg/a.go b/pkg/a.go
--- a/pkg/a.go
+++ b/pkg/a.go
@@ -1,3 +1,7 @@
 package pkg
 
+// A returns one.
+/*
+   It always has.
+*/
 func A() int { return 1 }
`},
		"comment and docstring change to a Python file": {diff: `diff --git a/app/tax.py b/app/tax.py
--- a/app/tax.py
+++ b/app/tax.py
@@ -1,2 +1,6 @@
 def tax(x):
+    """Return the tax on x.
+
+    The rate is fixed."""
+    # 20% everywhere for now
     return x * 0.2
`},
		"code under a comment": {diff: `diff --git a/pkg/a.go b/pkg/a.go
--- a/pkg/a.go
+++ b/pkg/a.go
@@ -1,3 +1,4 @@
 package pkg
 
-func A() int { return 1 }
+// A returns two now.
+func A() int { return 2 }
`, want: []string{"pkg/a.go"}},
		"docs only": {diff: changetest.NewFileDiff("docs/guide.md", "# Guide\n\nRun it.\n")},
		"a dereference is code, not a comment": {diff: `diff --git a/pkg/a.go b/pkg/a.go
--- a/pkg/a.go
+++ b/pkg/a.go
@@ -3,3 +3,4 @@ package pkg
 func Reset(p *int) {
+	*p = 0
 	return
 }
`, want: []string{"pkg/a.go"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ev := reviewtest.Gather(t, reviewtest.MustParse(t, tc.diff))
			if got := reviewtest.Found(ev, rules.RuleUntestedChange); strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("untested-change = %v, want %v\n%s", got, tc.want, reviewtest.Dump(ev))
			}
		})
	}
}

// TestProcessNotesNeverDecide debates changes whose only findings are process notes: none may
// request changes or make a required change; each note is a follow-up.
func TestProcessNotesNeverDecide(t *testing.T) {
	big := "package big\n\nvar table = []int{\n"
	for i := 0; i < evidence.DefaultMaxFileLines+5; i++ {
		big += "\t1,\n"
	}
	big += "}\n"
	tests := map[string]struct {
		diff string
		rule string
	}{
		"untested code": {diff: changetest.NewFileDiff("pkg/a.go", "package pkg\n\n// A returns one.\nfunc A() int { return 1 }\n"), rule: rules.RuleUntestedChange},
		"todo":          {diff: changetest.NewFileDiff("pkg/a.py", "# TODO: cache this\nx = 1\n") + changetest.NewFileDiff("tests/test_a.py", "def test_x():\n    assert True\n"), rule: rules.RuleTodo},
		"new dependency": {diff: `diff --git a/go.mod b/go.mod
--- a/go.mod
+++ b/go.mod
@@ -3,3 +3,4 @@ go 1.22
 require (
 	github.com/rs/zerolog v1.33.0
+	github.com/xuri/excelize/v2 v2.8.1
 )
`, rule: rules.RuleNewDependency},
		"exported API removed": {diff: `diff --git a/api/client.go b/api/client.go
--- a/api/client.go
+++ b/api/client.go
@@ -3,8 +3,5 @@ package api
 // Client talks to the API.
 type Client struct{}
 
-// Ping checks that the server answers.
-func (c *Client) Ping() error { return nil }
-
 // Close releases the client.
 func (c *Client) Close() error { return nil }
`, rule: rules.RuleExportedRemoved},
		"test deleted while its code remains": {diff: deletedPingTest, rule: rules.RuleTestDeleted},
		"very large file":                     {diff: changetest.NewFileDiff("big/table.go", big) + changetest.NewFileDiff("big/table_test.go", "package big\n\nimport \"testing\"\n\nfunc TestTable(t *testing.T) { _ = table }\n"), rule: rules.RuleLargeFile},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			tr := reviewtest.RunDebate(t, reviewtest.MustParse(t, tc.diff), toulmin.ProtocolStandard)
			r := tr.Record
			if r.Decision == voting.RequestChanges || r.Decision == voting.Escalate || len(r.RequiredChanges) > 0 {
				t.Fatalf("decision %s, required %v: a process note decided", r.Decision, r.RequiredChanges)
			}
			var noted bool
			for _, e := range tr.Evidence {
				if e.Rule == tc.rule {
					noted = true
					if e.Severity.Rank() > voting.SeverityMedium.Rank() {
						t.Errorf("%s is %s: a process note is at most medium", e.Rule, e.Severity)
					}
				}
			}
			if !noted {
				t.Fatalf("no %s evidence: the case does not test the rule", tc.rule)
			}
			if r.Decision == voting.ApproveWithChanges {
				var follow bool
				for _, f := range r.FollowUp {
					follow = follow || strings.Contains(f, rules.Rules[tc.rule].Fix)
				}
				if !follow {
					t.Errorf("decision %s, follow-ups %v: want the %s note among them", r.Decision, r.FollowUp, tc.rule)
				}
			}
		})
	}
}

// A process note reported with a higher severity is kept at medium, so that it can neither make
// a stakeholder request changes nor stand as a critical finding that escalates.
func TestProcessNotesAreAtMostMedium(t *testing.T) {
	s := scan.New(reviewtest.MustParse(t, deletedPingTest))
	s.ReportSeverity(rules.RuleTestDeleted, voting.SeverityCritical, "api/ping_test.go", 1, "test file deleted")
	s.ReportSeverity(rules.RuleSQLInjection, voting.SeverityCritical, "api/ping_test.go", 5, "not a process note")
	found := s.Findings()
	if len(found) != 2 {
		t.Fatalf("findings = %+v, want the process note and the finding", found)
	}
	for _, e := range found {
		want := voting.SeverityCritical
		if e.Rule == rules.RuleTestDeleted {
			want = voting.SeverityMedium
		}
		if e.Severity != want {
			t.Errorf("%s severity %s, want %s", e.Rule, e.Severity, want)
		}
	}
}

// TestNothingToSayIsOneLine: an agent whose evidence gives it nothing to argue makes no scored
// argument; the transcript shows its stance in one line.
func TestNothingToSayIsOneLine(t *testing.T) {
	tr := reviewtest.RunDebate(t, reviewtest.ReadChange(t, "evidence/testdata/cases/safe-go-parameterised-query.diff"), toulmin.ProtocolStandard)
	if tr.Record.Decision != voting.Approve {
		t.Fatalf("decision %s, want approve", tr.Record.Decision)
	}
	if len(tr.Arguments) != 0 {
		t.Errorf("%d arguments, want none: every agent had nothing to say\n%+v", len(tr.Arguments), tr.Arguments[0])
	}
	md, err := render.Markdown(tr, render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Every stakeholder agreed with nothing to argue: the fast exit skips to the decision, and the
	// transcript says so in one line where the maintainers' synthesis would have been.
	for _, want := range []string{
		"- **Security Stakeholder** (approve): No security concern in the evidence (",
		"- Fast exit: all 4 stakeholders agree (approve) after the openings and nothing above low stands: the debate skips to the decision",
	} {
		if strings.Count(md, want) != 1 {
			t.Errorf("transcript has %d lines %q, want 1", strings.Count(md, want), want)
		}
	}
	if strings.Contains(md, "Quality:") {
		t.Error("the transcript scores an argument though no agent had anything to say")
	}
}
