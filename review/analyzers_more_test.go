package review_test

import (
	"testing"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/reviewtest"
)

func TestPerformanceAnalyzers(t *testing.T) {
	runAnalyzerCases(t, map[string]analyzerCase{
		"go query per row": {files: map[string]string{"orders/report.go": `package orders

import "database/sql"

func Totals(db *sql.DB, ids []int) (map[int]float64, error) {
	out := map[int]float64{}
	for _, id := range ids {
		var t float64
		if err := db.QueryRow("SELECT SUM(amount) FROM orders WHERE user_id = $1", id).Scan(&t); err != nil {
			return nil, err
		}
		out[id] = t
	}
	return out, nil
}
`}, rule: rules.RuleCallInLoop, want: []string{"orders/report.go:9"}},
		"safe: go one query": {files: map[string]string{"orders/report.go": `package orders

import (
	"database/sql"

	"github.com/lib/pq"
)

func Totals(db *sql.DB, ids []int64) (*sql.Rows, error) {
	return db.Query("SELECT user_id, SUM(amount) FROM orders WHERE user_id = ANY($1) GROUP BY user_id", pq.Array(ids))
}
`}, rule: rules.RuleCallInLoop},
		"go http per item": {files: map[string]string{"sync/push.go": `package sync

import "net/http"

func Push(client *http.Client, reqs []*http.Request) error {
	for _, r := range reqs {
		resp, err := client.Do(r)
		if err != nil {
			return err
		}
		resp.Body.Close()
	}
	return nil
}
`}, rule: rules.RuleCallInLoop, want: []string{"sync/push.go:7"}},
		"python query per item": {files: map[string]string{"app/report.py": "def totals(cur, ids):\n    out = {}\n    for i in ids:\n        cur.execute(\"SELECT SUM(amount) FROM orders WHERE user_id = %s\", (i,))\n        out[i] = cur.fetchone()[0]\n    return out\n"},
			rule: rules.RuleCallInLoop, want: []string{"app/report.py:4", "app/report.py:5"}},
		"js fetch per item": {files: map[string]string{"src/load.js": "async function load(ids) {\n  const out = [];\n  for (const id of ids) {\n    out.push(await fetch(`/api/items/${id}`));\n  }\n  return out;\n}\n"},
			rule: rules.RuleCallInLoop, want: []string{"src/load.js:4"}},
		"safe: js fetch once": {files: map[string]string{"src/load.js": "async function load(ids) {\n  const res = await fetch('/api/items?ids=' + ids.join(','));\n  return res.json();\n}\n"},
			rule: rules.RuleCallInLoop},

		"go goroutine per item": {files: map[string]string{"fetch/all.go": `package fetch

import "sync"

func All(urls []string, get func(string)) {
	var wg sync.WaitGroup
	for _, u := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			get(u)
		}()
	}
	wg.Wait()
}
`}, rule: rules.RuleUnboundedGo, want: []string{"fetch/all.go:9"}},
		"safe: go bounded by errgroup": {files: map[string]string{"fetch/all.go": `package fetch

import "golang.org/x/sync/errgroup"

func All(urls []string, get func(string) error) error {
	var g errgroup.Group
	g.SetLimit(8)
	for _, u := range urls {
		g.Go(func() error { return get(u) })
	}
	return g.Wait()
}
`}, rule: rules.RuleUnboundedGo},

		"go defer in loop": {files: map[string]string{"files/sum.go": `package files

import "os"

func Sizes(paths []string) (int64, error) {
	var n int64
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return 0, err
		}
		n += st.Size()
	}
	return n, nil
}
`}, rule: rules.RuleDeferInLoop, want: []string{"files/sum.go:12"}},
		"safe: go defer inside a closure per iteration": {files: map[string]string{"files/sum.go": `package files

import "os"

func Sizes(paths []string) (n int64, err error) {
	for _, p := range paths {
		err = func() error {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			st, err := f.Stat()
			if err != nil {
				return err
			}
			n += st.Size()
			return nil
		}()
		if err != nil {
			return 0, err
		}
	}
	return n, nil
}
`}, rule: rules.RuleDeferInLoop},

		"go string += in loop": {files: map[string]string{"csv/row.go": `package csv

func Join(cells []string) string {
	s := ""
	for _, c := range cells {
		s += c + ","
	}
	return s
}
`}, rule: rules.RuleStringConcatLoop, want: []string{"csv/row.go:6"}},
		"safe: go integer += in loop": {files: map[string]string{"stats/sum.go": `package stats

func Sum(xs []int) int {
	total := 0
	for _, x := range xs {
		total += x
	}
	return total
}
`}, rule: rules.RuleStringConcatLoop},
		"java String += in loop": {files: map[string]string{"src/main/java/Csv.java": "class Csv {\n  String join(List<String> cells) {\n    String s = \"\";\n    for (String c : cells) {\n      s += \",\" + c;\n    }\n    return s;\n  }\n}\n"},
			rule: rules.RuleStringConcatLoop, want: []string{"src/main/java/Csv.java:5"}},
	})
}

func TestMaintainabilityAnalyzers(t *testing.T) {
	runAnalyzerCases(t, map[string]analyzerCase{
		"go error assigned to _": {files: map[string]string{"cfg/load.go": `package cfg

import "strconv"

func Port(s string) int {
	p, _ := strconv.Atoi(s)
	return p
}
`}, rule: rules.RuleIgnoredError, want: []string{"cfg/load.go:6"}},
		"go empty error branch and dropped Unmarshal": {files: map[string]string{"cfg/load.go": `package cfg

import (
	"encoding/json"
	"os"
)

func Load(p string, v any) {
	b, err := os.ReadFile(p)
	if err != nil {
	}
	json.Unmarshal(b, v)
}
`}, rule: rules.RuleIgnoredError, want: []string{"cfg/load.go:10", "cfg/load.go:12"}},
		"safe: go handled errors and map lookups": {files: map[string]string{"cfg/load.go": `package cfg

import (
	"fmt"
	"strconv"
	"strings"
)

func Port(s string, m map[string]int) (int, error) {
	if v, ok := m[s]; ok {
		return v, nil
	}
	var b strings.Builder
	_, _ = b.WriteString(s)
	p, err := strconv.Atoi(b.String())
	if err != nil {
		return 0, fmt.Errorf("bad port %q: %w", s, err)
	}
	return p, nil
}
`}, rule: rules.RuleIgnoredError},
		"python bare except pass": {files: map[string]string{"jobs.py": "def run(job):\n    try:\n        job()\n    except Exception:\n        pass\n"},
			rule: rules.RuleIgnoredError, want: []string{"jobs.py:4"}},
		"js empty catch": {files: map[string]string{"src/save.js": "function save(x) {\n  try { store.put(x); } catch (e) {}\n}\n"},
			rule: rules.RuleIgnoredError, want: []string{"src/save.js:2"}},

		"go panic in library": {files: map[string]string{"parse/parse.go": `package parse

func Level(s string) int {
	switch s {
	case "debug":
		return 0
	case "info":
		return 1
	}
	panic("unknown level " + s)
}
`}, rule: rules.RulePanicInLibrary, want: []string{"parse/parse.go:10"}},
		"safe: go panic in Must and main": {files: map[string]string{"parse/parse.go": `package parse

func MustLevel(s string) int {
	if s == "" {
		panic("empty level")
	}
	return len(s)
}
`, "cmd/tool/main.go": `package main

func main() {
	panic("not implemented")
}
`}, rule: rules.RulePanicInLibrary},

		"todo and fixme": {files: map[string]string{"a.py": "# TODO: handle retries\nx = 1  # FIXME(bob) wrong unit\n", "b.go": "package b\n\n// HACK: works around a driver bug\nvar y = \"TODO is just a word here\"\n"},
			rule: rules.RuleTodo, want: []string{"a.py:1", "a.py:2", "b.go:3"}},

		"untested change": {files: map[string]string{"pkg/a.go": "package pkg\n\nfunc A() int { return 1 }\n"},
			rule: rules.RuleUntestedChange, want: []string{"pkg/a.go"}},
		"safe: change with its test": {files: map[string]string{"pkg/a.go": "package pkg\n\nfunc A() int { return 1 }\n", "pkg/a_test.go": "package pkg\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {\n\tif A() != 1 {\n\t\tt.Fatal(A())\n\t}\n}\n"},
			rule: rules.RuleUntestedChange},
		"safe: docs only": {files: map[string]string{"docs/guide.md": "# Guide\n"}, rule: rules.RuleUntestedChange},
	})
}

func TestLargeFunctionAndFile(t *testing.T) {
	body := "package big\n\nfunc Big() int {\n\tx := 0\n"
	for i := 0; i < 90; i++ {
		body += "\tx++\n"
	}
	body += "\treturn x\n}\n"
	ev := reviewtest.Gather(t, reviewtest.ChangeOf(t, map[string]string{"big/big.go": body}))
	if got := reviewtest.Found(ev, rules.RuleLargeFunction); len(got) != 1 || got[0] != "big/big.go:3" {
		t.Errorf("large-function = %v, want [big/big.go:3]", got)
	}
	small := reviewtest.Gather(t, reviewtest.ChangeOf(t, map[string]string{"big/small.go": "package big\n\nfunc Small() int { return 1 }\n"}))
	if got := reviewtest.Found(small, rules.RuleLargeFunction); len(got) != 0 {
		t.Errorf("large-function on a small function = %v", got)
	}
}

func TestChangeLevelAnalyzers(t *testing.T) {
	tests := map[string]struct {
		diff string
		rule string
		want []string
	}{
		"new go module": {diff: `
diff --git a/go.mod b/go.mod
--- a/go.mod
+++ b/go.mod
@@ -3,3 +3,5 @@ go 1.22
 require (
 	github.com/rs/zerolog v1.33.0
+	github.com/xuri/excelize/v2 v2.8.1
+	golang.org/x/text v0.14.0 // indirect
 )
`, rule: rules.RuleNewDependency, want: []string{"go.mod:5"}},
		"safe: go module version bump": {diff: `
diff --git a/go.mod b/go.mod
--- a/go.mod
+++ b/go.mod
@@ -3,3 +3,3 @@ go 1.22
 require (
-	github.com/rs/zerolog v1.33.0
+	github.com/rs/zerolog v1.34.0
 )
`, rule: rules.RuleNewDependency},
		"new npm dependency, not the version field": {diff: `
diff --git a/package.json b/package.json
--- a/package.json
+++ b/package.json
@@ -1,7 +1,8 @@
 {
   "name": "shop",
-  "version": "1.0.0",
+  "version": "1.1.0",
   "dependencies": {
+    "left-pad": "^1.3.0",
     "express": "^4.19.2"
   }
 }
`, rule: rules.RuleNewDependency, want: []string{"package.json:5"}},
		"new python requirement": {diff: `
diff --git a/requirements.txt b/requirements.txt
--- a/requirements.txt
+++ b/requirements.txt
@@ -1,2 +1,4 @@
 flask==3.0.0
+# HTTP client
+requests>=2.31
 gunicorn==21.2.0
`, rule: rules.RuleNewDependency, want: []string{"requirements.txt:3"}},
		"exported go function removed": {diff: `
diff --git a/api/client.go b/api/client.go
--- a/api/client.go
+++ b/api/client.go
@@ -10,9 +10,4 @@ func New() *Client {
 	return &Client{}
 }
 
-// Ping checks the server.
-func (c *Client) Ping() error {
-	return nil
-}
-
 func (c *Client) Close() error { return nil }
`, rule: rules.RuleExportedRemoved, want: []string{"api/client.go:12"}},
		"safe: exported go function renamed in place": {diff: `
diff --git a/api/client.go b/api/client.go
--- a/api/client.go
+++ b/api/client.go
@@ -10,6 +10,6 @@ func New() *Client {
 	return &Client{}
 }
 
-func (c *Client) Ping() error {
+func (c *Client) Ping() error { // now documented
 	return nil
 }
`, rule: rules.RuleExportedRemoved},
		"safe: unexported function removed": {diff: `
diff --git a/api/client.go b/api/client.go
--- a/api/client.go
+++ b/api/client.go
@@ -10,5 +10,2 @@ func New() *Client {
 	return &Client{}
 }
-func helper() {}
-
-func other() {}
`, rule: rules.RuleExportedRemoved},
		"test function deleted": {diff: `
diff --git a/api/client_test.go b/api/client_test.go
--- a/api/client_test.go
+++ b/api/client_test.go
@@ -5,9 +5,3 @@ import "testing"
 func TestNew(t *testing.T) {
 	_ = New()
 }
-
-func TestPing(t *testing.T) {
-	if err := New().Ping(); err != nil {
-		t.Fatal(err)
-	}
-}
`, rule: rules.RuleTestDeleted, want: []string{"api/client_test.go:7"}},
		"test file deleted": {diff: `
diff --git a/tests/test_api.py b/tests/test_api.py
deleted file mode 100644
--- a/tests/test_api.py
+++ /dev/null
@@ -1,2 +0,0 @@
-def test_ping():
-    assert ping()
`, rule: rules.RuleTestDeleted, want: []string{"tests/test_api.py:1"}},
		"safe: test renamed": {diff: `
diff --git a/api/client_test.go b/api/client_test.go
--- a/api/client_test.go
+++ b/api/client_test.go
@@ -5,3 +5,3 @@ import "testing"
-func TestPing(t *testing.T) {
+func TestPing(t *testing.T) { // table-driven below
 	_ = New()
 }
`, rule: rules.RuleTestDeleted},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ev := reviewtest.Gather(t, reviewtest.MustParse(t, tc.diff))
			got := reviewtest.Found(ev, tc.rule)
			if len(got) != len(tc.want) || (len(got) > 0 && got[0] != tc.want[0]) {
				t.Errorf("%s = %v, want %v\n%s", tc.rule, got, tc.want, reviewtest.Dump(ev))
			}
		})
	}
}
