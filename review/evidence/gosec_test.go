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
	"github.com/debatebot/debatebot/voting"
	"github.com/securego/gosec/v2/issue"
)

// The head of testdata/gosec adds handlers that pass request values to db.Query through
// fmt.Sprintf, to exec.Command, to os.Open and to http.Get; the base already ran a program named
// by the request (Server.Old), which is not reported again.
func TestGosecReportsNewSecurityFindings(t *testing.T) {
	withoutLinters(t) // noctx and rowserrcheck see the handlers' queries too
	res, err := Run(context.Background(), Options{BaseDir: "testdata/gosec/base", HeadDir: "testdata/gosec/head", Files: []string{"web/web.go"}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var got []string
	byKey := map[string]scan.Finding{}
	for _, f := range res.New {
		k := fmt.Sprintf("%s %s:%d", f.Rule, f.Path, f.Line)
		got = append(got, k)
		byKey[k] = f
	}
	sort.Strings(got)
	want := []string{
		"gosec:G201 web/web.go:29", // SQL string formatting (AST rule)
		"gosec:G204 web/web.go:68", // subprocess with tainted arguments (AST rule)
		"gosec:G701 web/web.go:30", // SQL injection: request value reaches db.Query (taint)
		"gosec:G702 web/web.go:68", // command injection (taint)
		"gosec:G703 web/web.go:76", // path traversal: request value reaches os.Open (taint)
		"gosec:G704 web/web.go:87", // SSRF: request value reaches http.Get (taint)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("new findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	checks := []struct {
		key, fn  string
		severity voting.Severity
		msg      string
	}{
		{"gosec:G701 web/web.go:30", "Server.Names", voting.SeverityHigh, "SQL injection via taint analysis: (*database/sql.DB).Query"},
		{"gosec:G702 web/web.go:68", "Server.Convert", voting.SeverityCritical, "Command injection via taint analysis: os/exec.Command"},
		{"gosec:G703 web/web.go:76", "Server.Download", voting.SeverityHigh, "Path traversal via taint analysis: os.Open"},
		{"gosec:G704 web/web.go:87", "Server.Proxy", voting.SeverityHigh, "SSRF via taint analysis: net/http.Get"},
		{"gosec:G201 web/web.go:29", "Server.Names", voting.SeverityMedium, "SQL string formatting"},
	}
	for _, c := range checks {
		f, ok := byKey[c.key]
		if !ok {
			continue // reported above
		}
		if f.Func != c.fn || f.Severity != c.severity || f.Message != c.msg || f.Source != rules.SourceGosec || f.Topic != rules.TopicSecurity {
			t.Errorf("%s = %+v, want func %s severity %s message %q", c.key, f, c.fn, c.severity, c.msg)
		}
	}
	// Server.Old's command injection (G204, G702) and the XSS of its output (G705) were in the base.
	for _, f := range res.New {
		if f.Func == "Server.Old" {
			t.Errorf("pre-existing finding reported as new: %+v", f)
		}
	}
	if res.Preexisting != 3 {
		t.Errorf("Preexisting = %d, want 3 (G204, G702, G705 in Server.Old)", res.Preexisting)
	}
	if len(res.Degraded) != 0 {
		t.Errorf("Degraded = %+v", res.Degraded)
	}
}

// gosec cannot tell `IN (?,?,?)` built from strings.Repeat("?,", n) from SQL built from the
// request: G202 flags the concatenation and the taint rule G701 follows len(ids) from the request
// into the query text. Those findings are dropped when every piece of the SQL text is built from
// constants (generatedPlaceholders); ByIDs in testdata/gosec has none left.
func TestGosecGeneratedPlaceholders(t *testing.T) {
	withoutLinters(t)
	res, err := Run(context.Background(), Options{BaseDir: "testdata/gosec/base", HeadDir: "testdata/gosec/head", Files: []string{"web/web.go"}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	for _, f := range res.New {
		if f.Func == "Server.ByIDs" {
			t.Errorf("finding on generated placeholders: %+v", f)
		}
	}
}

// The placeholders' value flow: strings built from constants by loops, Join, Sprintf of numbers
// and a strings.Builder are dropped; text joined from request values, or from a slice a helper
// filled, keeps gosec's findings.
func TestGosecPlaceholderValueFlow(t *testing.T) {
	dir := t.TempDir()
	changetest.Write(t, dir+"/go.mod", "module example.com/ph\n\ngo 1.22\n")
	changetest.Write(t, dir+"/p/p.go", `package p

import (
	"database/sql"
	"fmt"
	"net/http"
	"strings"
)

// Loop appends one mark per id.
func Loop(db *sql.DB, r *http.Request) error {
	ids := r.URL.Query()["id"]
	var marks []string
	args := []any{}
	for _, id := range ids {
		marks = append(marks, "?")
		args = append(args, id)
	}
	_, err := db.Query("SELECT 1 FROM t WHERE id IN ("+strings.Join(marks, ",")+")", args...)
	return err
}

// Dollar numbers the placeholders for Postgres.
func Dollar(db *sql.DB, r *http.Request) error {
	ids := r.URL.Query()["id"]
	marks := make([]string, len(ids))
	args := make([]any, len(ids))
	for i, id := range ids {
		marks[i] = fmt.Sprintf("$%d", i+1)
		args[i] = id
	}
	q := "SELECT 1 FROM t WHERE id IN (" + strings.Join(marks, ", ") + ")"
	_, err := db.Query(q, args...)
	return err
}

// Builder writes constants only.
func Builder(db *sql.DB, r *http.Request) error {
	ids := r.URL.Query()["id"]
	var b strings.Builder
	b.WriteString("SELECT 1 FROM t WHERE id IN (")
	args := []any{}
	for i, id := range ids {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("?")
		args = append(args, id)
	}
	b.WriteString(")")
	_, err := db.Query(b.String(), args...)
	return err
}

// Values joins the request's values into the text.
func Values(db *sql.DB, r *http.Request) error {
	ids := r.URL.Query()["id"]
	_, err := db.Query("SELECT 1 FROM t WHERE id IN (" + strings.Join(ids, ",") + ")")
	return err
}

// Filled passes its marks to a helper that could put anything in them.
func Filled(db *sql.DB, r *http.Request) error {
	ids := r.URL.Query()["id"]
	marks := make([]string, len(ids))
	fill(marks, ids)
	_, err := db.Query("SELECT 1 FROM t WHERE id IN (" + strings.Join(marks, ",") + ")")
	return err
}

func fill(dst, src []string) { copy(dst, src) }
`)
	rep, err := AnalyzeTree(context.Background(), dir, []string{"p/p.go"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	byFunc := map[string][]string{}
	for _, f := range rep.Findings {
		if f.Source == rules.SourceGosec && sqlTextRules[strings.TrimPrefix(f.Rule, "gosec:")] {
			byFunc[f.Func] = append(byFunc[f.Func], f.Rule)
		}
	}
	for _, fn := range []string{"Loop", "Dollar", "Builder"} {
		if len(byFunc[fn]) > 0 {
			t.Errorf("%s: %v on placeholders built from constants", fn, byFunc[fn])
		}
	}
	for _, fn := range []string{"Values", "Filled"} {
		if len(byFunc[fn]) == 0 {
			t.Errorf("%s: no SQL finding on text built from values (all: %v)", fn, byFunc)
		}
	}
}

// A #nosec comment with the rule id silences gosec's findings on its line, as gosec honours it.
func TestGosecHonoursNosec(t *testing.T) {
	dir := t.TempDir()
	changetest.Write(t, dir+"/go.mod", "module example.com/nosec\n\ngo 1.22\n")
	changetest.Write(t, dir+"/p/p.go", "package p\n\nimport (\n\t\"net/http\"\n\t\"os\"\n)\n\n// Open opens.\nfunc Open(r *http.Request) (*os.File, error) {\n\treturn os.Open(r.FormValue(\"f\")) // #nosec G703 -- the caller checks the name\n}\n\n// Open2 opens.\nfunc Open2(r *http.Request) (*os.File, error) {\n\treturn os.Open(r.FormValue(\"f\"))\n}\n")
	rep, err := AnalyzeTree(context.Background(), dir, []string{"p/p.go"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.Source == rules.SourceGosec {
			got = append(got, fmt.Sprintf("%s %s:%d", f.Rule, f.Path, f.Line))
		}
	}
	if strings.Join(got, ", ") != "gosec:G703 p/p.go:15" {
		t.Errorf("gosec findings = %q, want only G703 at p/p.go:15", got)
	}
}

func TestGosecChecksCatalog(t *testing.T) {
	byRule := map[string]rules.Check{}
	for _, c := range Checks() {
		if c.Source == rules.SourceGosec {
			byRule[c.Rule] = c
		}
	}
	for _, id := range []string{"G101", "G107", "G201", "G202", "G203", "G204", "G304", "G401", "G402", "G701", "G702", "G703", "G704", "G705"} {
		c, ok := byRule["gosec:"+id]
		if !ok {
			t.Errorf("no check gosec:%s", id)
			continue
		}
		if c.Topic != rules.TopicSecurity || c.Fix == "" || c.Title == "" || c.CWE == "" || !strings.HasPrefix(c.URL, "https://cwe.mitre.org/") {
			t.Errorf("check %+v lacks topic, fix, title or CWE", c)
		}
	}
	if byRule["gosec:G702"].Severity != voting.SeverityCritical || byRule["gosec:G701"].Severity != voting.SeverityHigh || byRule["gosec:G201"].CWE != "CWE-89" {
		t.Errorf("G702 %s, G701 %s, G201 %s", byRule["gosec:G702"].Severity, byRule["gosec:G701"].Severity, byRule["gosec:G201"].CWE)
	}
	for _, id := range []string{"G103", "G104", "G601"} {
		if _, ok := byRule["gosec:"+id]; ok {
			t.Errorf("gosec:%s is run; it is left out", id)
		}
	}
	// Every rule gosec has (but those left out) has a fix of its own.
	for rule := range byRule {
		if gosecFixes[strings.TrimPrefix(rule, "gosec:")] == "" {
			t.Errorf("%s has no fix text", rule)
		}
	}
}

func TestGosecSeverity(t *testing.T) {
	cases := []struct {
		rule      string
		sev, conf issue.Score
		want      voting.Severity
	}{
		{"G201", issue.Medium, issue.High, voting.SeverityMedium},
		{"G402", issue.High, issue.High, voting.SeverityHigh},
		{"G402", issue.High, issue.Low, voting.SeverityMedium},
		{"G404", issue.Medium, issue.Low, voting.SeverityLow},
		{"G115", issue.Low, issue.High, voting.SeverityLow},
		{"G702", issue.High, issue.High, voting.SeverityCritical},
		{"G706", issue.Low, issue.High, voting.SeverityLow},
	}
	for _, c := range cases {
		if got := gosecSeverity(&issue.Issue{RuleID: c.rule, Severity: c.sev, Confidence: c.conf}); got != c.want {
			t.Errorf("%s %v/%v = %s, want %s", c.rule, c.sev, c.conf, got, c.want)
		}
	}
}
