package review_test

import (
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/reviewtest"
)

// TestWhatReachesTheSink: SQL made only of constants and generated placeholders, with the values
// passed as arguments, and a program found by exec.LookPath of a constant name, are not
// injections; input that reaches the text or the program still is, however it gets there.
func TestWhatReachesTheSink(t *testing.T) {
	runAnalyzerCases(t, map[string]analyzerCase{
		"safe: IN list from strings.Repeat": {files: map[string]string{"store/users.go": `package store

import (
	"database/sql"
	"strings"
)

func Users(db *sql.DB, ids []any) (*sql.Rows, error) {
	marks := strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")
	return db.Query("SELECT id, email FROM users WHERE id IN (" + marks + ")", ids...)
}
`}, rule: rules.RuleSQLInjection},
		"safe: IN list from placeholders appended in a loop": {files: map[string]string{"store/users.go": `package store

import (
	"database/sql"
	"fmt"
	"strings"
)

func Users(db *sql.DB, ids []int64) (*sql.Rows, error) {
	var marks []string
	args := make([]any, 0, len(ids))
	for _, id := range ids {
		marks = append(marks, "?")
		args = append(args, id)
	}
	query := fmt.Sprintf("SELECT id, email FROM users WHERE id IN (%s)", strings.Join(marks, ", "))
	return db.Query(query, args...)
}
`}, rule: rules.RuleSQLInjection},
		"safe: numbered postgres placeholders": {files: map[string]string{"store/users.go": `package store

import (
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

func Users(db *sql.DB, ids []int64) (*sql.Rows, error) {
	marks := make([]string, len(ids))
	args := make([]any, len(ids))
	for i, id := range ids {
		marks[i] = "$" + strconv.Itoa(i+1)
		args[i] = id
	}
	query := "SELECT id FROM users WHERE id IN (" + strings.Join(marks, ",") + ")"
	query += fmt.Sprintf(" LIMIT $%d", len(ids)+1)
	return db.Query(query, append(args, 100)...)
}
`}, rule: rules.RuleSQLInjection},
		"IN list built from the values themselves": {files: map[string]string{"store/users.go": `package store

import (
	"database/sql"
	"strings"
)

func Users(db *sql.DB, names []string) (*sql.Rows, error) {
	var quoted []string
	for _, n := range names {
		quoted = append(quoted, "'"+n+"'")
	}
	return db.Query("SELECT id FROM users WHERE name IN (" + strings.Join(quoted, ",") + ")")
}
`}, rule: rules.RuleSQLInjection, want: []string{"store/users.go:13"}},
		"Sprintf of a parameter into SQL": {files: map[string]string{"store/users.go": `package store

import (
	"database/sql"
	"fmt"
)

func User(db *sql.DB, email string) *sql.Row {
	q := fmt.Sprintf("SELECT id FROM users WHERE email = '%s'", email)
	return db.QueryRow(q)
}
`}, rule: rules.RuleSQLInjection, want: []string{"store/users.go:10"}},
		"SQL text extended with input": {files: map[string]string{"store/users.go": `package store

import "database/sql"

func Users(db *sql.DB, country string) (*sql.Rows, error) {
	q := "SELECT id FROM users WHERE active"
	if country != "" {
		q += " AND country = '" + country + "'"
	}
	return db.Query(q)
}
`}, rule: rules.RuleSQLInjection, want: []string{"store/users.go:10"}},
		"placeholder variable also given input": {files: map[string]string{"store/users.go": `package store

import (
	"database/sql"
	"strings"
)

func Users(db *sql.DB, ids []any, extra string) (*sql.Rows, error) {
	marks := strings.Repeat("?,", len(ids))
	marks += extra
	return db.Query("SELECT id FROM users WHERE id IN (" + marks + "0)", ids...)
}
`}, rule: rules.RuleSQLInjection, want: []string{"store/users.go:11"}},

		"safe: program found by LookPath": {files: map[string]string{"tools/fmt.go": `package tools

import (
	"fmt"
	"os/exec"
)

func Format(file string) error {
	gofmt, err := exec.LookPath("gofmt")
	if err != nil {
		return fmt.Errorf("gofmt is not installed: %w", err)
	}
	return exec.Command(gofmt, "-w", file).Run()
}
`}, rule: rules.RuleCommandInjection},
		"safe: program chosen between constants": {files: map[string]string{"tools/fmt.go": `package tools

import "os/exec"

const goimports = "goimports"

func Format(file string, imports bool) error {
	prog := "gofmt"
	if imports {
		prog = goimports
	}
	return exec.Command(prog, "-w", file).Run()
}
`}, rule: rules.RuleCommandInjection},
		"LookPath of a name from input": {files: map[string]string{"tools/run.go": `package tools

import "os/exec"

func Run(tool string) error {
	p, err := exec.LookPath(tool)
	if err != nil {
		return err
	}
	return exec.Command(p).Run()
}
`}, rule: rules.RuleCommandInjection, want: []string{"tools/run.go:10"}},
		"program from a parameter": {files: map[string]string{"tools/run.go": `package tools

import "os/exec"

func Run(tool string) error {
	prog := tool
	return exec.Command(prog, "--version").Run()
}
`}, rule: rules.RuleCommandInjection, want: []string{"tools/run.go:7"}},
	})
}

// TestWhatReachesTheSinkInHunks: with --diff alone a modified Go file has no content to parse;
// the lines its hunks show decide the same way, and what they do not show counts as input.
func TestWhatReachesTheSinkInHunks(t *testing.T) {
	tests := map[string]struct {
		diff, rule string
		want       []string
	}{
		"safe: command from LookPath": {rule: rules.RuleCommandInjection, diff: `diff --git a/tools/fmt.go b/tools/fmt.go
--- a/tools/fmt.go
+++ b/tools/fmt.go
@@ -8,4 +8,8 @@ import (
 
 func Format(file string) error {
-	return exec.Command("gofmt", "-w", file).Run()
+	gofmt, err := exec.LookPath("gofmt")
+	if err != nil {
+		return fmt.Errorf("gofmt is not installed: %w", err)
+	}
+	return exec.Command(gofmt, "-w", file).Run()
 }
`},
		"safe: IN list of placeholders": {rule: rules.RuleSQLInjection, diff: `diff --git a/store/users.go b/store/users.go
--- a/store/users.go
+++ b/store/users.go
@@ -5,3 +5,10 @@ import (
 func Users(db *sql.DB, ids []int64) (*sql.Rows, error) {
-	return db.Query("SELECT id FROM users WHERE id = ?", ids[0])
+	marks := make([]string, len(ids))
+	args := make([]any, len(ids))
+	for i, id := range ids {
+		marks[i] = "?"
+		args[i] = id
+	}
+	query := fmt.Sprintf("SELECT id FROM users WHERE id IN (%s)", strings.Join(marks, ","))
+	return db.Query(query+" ORDER BY id", args...)
 }
`},
		"Sprintf of a parameter": {rule: rules.RuleSQLInjection, want: []string{"store/users.go:7"}, diff: `diff --git a/store/users.go b/store/users.go
--- a/store/users.go
+++ b/store/users.go
@@ -5,3 +5,4 @@ import (
 func ByEmail(db *sql.DB, email string) *sql.Row {
-	return db.QueryRow("SELECT id FROM users WHERE email = $1", email)
+	q := fmt.Sprintf("SELECT id FROM users WHERE email = '%s'", email)
+	return db.QueryRow(q)
 }
`},
		"LookPath of a parameter": {rule: rules.RuleCommandInjection, want: []string{"tools/run.go:7"}, diff: `diff --git a/tools/run.go b/tools/run.go
--- a/tools/run.go
+++ b/tools/run.go
@@ -5,3 +5,4 @@ import (
 func Run(tool string) error {
-	return exec.Command("true").Run()
+	p, _ := exec.LookPath(tool)
+	return exec.Command(p).Run()
 }
`},
		"program assigned out of sight": {rule: rules.RuleCommandInjection, want: []string{"tools/run.go:9"}, diff: `diff --git a/tools/run.go b/tools/run.go
--- a/tools/run.go
+++ b/tools/run.go
@@ -8,3 +8,3 @@ func Run() error {
 	defer cancel()
-	return exec.Command("true").Run()
+	return exec.Command(prog).Run()
 }
`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := reviewtest.MustParse(t, tc.diff)
			ev := reviewtest.Gather(t, c)
			if got := reviewtest.Found(ev, tc.rule); strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("%s = %v, want %v\n%s", tc.rule, got, tc.want, reviewtest.Dump(ev))
			}
		})
	}
}
