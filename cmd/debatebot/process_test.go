package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change/changetest"
)

// deletedFile is the git diff that deletes a file.
func deletedFile(path, content string) string {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	var b strings.Builder
	b.WriteString("diff --git a/" + path + " b/" + path + "\ndeleted file mode 100644\nindex 1111111..0000000\n--- a/" + path + "\n+++ /dev/null\n")
	b.WriteString("@@ -1," + itoa(len(lines)) + " +0,0 @@\n")
	for _, l := range lines {
		b.WriteString("-" + l + "\n")
	}
	return b.String()
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

type debated struct {
	Decision struct {
		Decision        string   `json:"decision"`
		RequiredChanges []string `json:"required_changes"`
		FollowUp        []string `json:"follow_up"`
	} `json:"decision"`
	markdown string
}

// debateDiff runs `debatebot debate --diff` on the diff, as JSON and as Markdown.
func debateDiff(t *testing.T, diff string) debated {
	t.Helper()
	p := filepath.Join(t.TempDir(), "change.diff")
	if err := os.WriteFile(p, []byte(diff), 0o644); err != nil {
		t.Fatal(err)
	}
	var d debated
	code, out, errOut := runCmd(t, "", nil, "debate", "--diff", p, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	code, d.markdown, errOut = runCmd(t, "", nil, "debate", "--diff", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	return d
}

// evidenceRules lists the rules of the transcript's evidence table.
func evidenceRules(md string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^\| E\d+ \| \w+ \| [^|]+ \| ([\w-]+) \|`).FindAllStringSubmatch(md, -1) {
		out = append(out, m[1])
	}
	return out
}

const pingGo = `package api

// Ping checks that the server answers.
func (c *Client) Ping() error { return c.get("/ping") }
`

const pingTest = `package api

import "testing"

func TestPing(t *testing.T) {
	if err := newTestClient(t).Ping(); err != nil {
		t.Fatal(err)
	}
}
`

func TestDebateTestDeletedWithItsCode(t *testing.T) {
	d := debateDiff(t, deletedFile("api/ping.go", pingGo)+deletedFile("api/ping_test.go", pingTest))
	if d.Decision.Decision == "request_changes" || len(d.Decision.RequiredChanges) > 0 {
		t.Errorf("decision %s, required %v: a test deleted with its code held the change back", d.Decision.Decision, d.Decision.RequiredChanges)
	}
	for _, r := range evidenceRules(d.markdown) {
		if r == "test-deleted" {
			t.Errorf("a test deleted together with the code it tested is reported as deleted tests:\n%s", d.markdown)
		}
	}
}

func TestDebateUntestedChangeIsOneFollowUp(t *testing.T) {
	d := debateDiff(t, changetest.NewFileDiff("internal/calc/calc.go", `// Package calc adds up prices.
package calc

// Total returns the sum of the prices in cents.
func Total(prices []int64) int64 {
	var sum int64
	for _, p := range prices {
		sum += p
	}
	return sum
}
`)+changetest.NewFileDiff("internal/calc/round.go", `package calc

// Round rounds cents to whole units.
func Round(cents int64) int64 { return (cents + 50) / 100 * 100 }
`))
	if d.Decision.Decision != "approve" && d.Decision.Decision != "approve_with_changes" {
		t.Fatalf("decision %s, want approve_with_changes at worst", d.Decision.Decision)
	}
	if len(d.Decision.RequiredChanges) > 0 {
		t.Errorf("required %v: untested code is a follow-up", d.Decision.RequiredChanges)
	}
	var untested []string
	for _, f := range d.Decision.FollowUp {
		if strings.Contains(f, "add or update tests") {
			untested = append(untested, f)
		}
	}
	if len(untested) != 1 {
		t.Fatalf("untested-change follow-ups %v, want exactly one", untested)
	}
	if !regexp.MustCompile(`^internal/calc/[a-z]+\.go: add or update tests`).MatchString(untested[0]) {
		t.Errorf("follow-up %q cites a line: the note is about the change, not a line", untested[0])
	}
	if n := strings.Count(d.markdown, "| untested-change |"); n != 1 {
		t.Errorf("%d untested-change evidence items, want 1", n)
	}
}

func TestDebatePlaceholdersAndLookPathAreNotInjection(t *testing.T) {
	d := debateDiff(t, changetest.NewFileDiff("store/users.go", `package store

import (
	"database/sql"
	"strings"
)

// Users returns the users with the given ids.
func Users(db *sql.DB, ids []int64) (*sql.Rows, error) {
	marks := make([]string, 0, len(ids))
	args := make([]any, 0, len(ids))
	for _, id := range ids {
		marks = append(marks, "?")
		args = append(args, id)
	}
	return db.Query("SELECT id, email FROM users WHERE id IN ("+strings.Join(marks, ",")+")", args...)
}
`)+changetest.NewFileDiff("tools/gofmt.go", `package tools

import (
	"fmt"
	"os/exec"
)

// Format runs gofmt on the file.
func Format(file string) error {
	gofmt, err := exec.LookPath("gofmt")
	if err != nil {
		return fmt.Errorf("gofmt is not installed: %w", err)
	}
	return exec.Command(gofmt, "-l", "-w", file).Run()
}
`))
	for _, r := range evidenceRules(d.markdown) {
		if r == "sql-injection" || r == "command-injection" {
			t.Errorf("security finding %s on placeholders or a LookPath program", r)
		}
	}
	if d.Decision.Decision == "request_changes" {
		t.Errorf("decision %s, required %v", d.Decision.Decision, d.Decision.RequiredChanges)
	}

	// The same refactors of existing files, with --diff alone (hunks only, no file content).
	d = debateDiff(t, `diff --git a/tools/fmt.go b/tools/fmt.go
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
diff --git a/store/users.go b/store/users.go
--- a/store/users.go
+++ b/store/users.go
@@ -5,3 +5,8 @@ import (
 func Users(db *sql.DB, ids []any) (*sql.Rows, error) {
-	return db.Query("SELECT id FROM users WHERE id = ?", ids[0])
+	if len(ids) == 0 {
+		return nil, errNoIDs
+	}
+	marks := strings.Repeat("?,", len(ids)-1) + "?"
+	query := "SELECT id FROM users WHERE id IN (" + marks + ")"
+	return db.Query(query, ids...)
 }
`)
	for _, r := range evidenceRules(d.markdown) {
		if r == "sql-injection" || r == "command-injection" {
			t.Errorf("hunks only: security finding %s on placeholders or a LookPath program", r)
		}
	}
	if d.Decision.Decision == "request_changes" {
		t.Errorf("hunks only: decision %s, required %v", d.Decision.Decision, d.Decision.RequiredChanges)
	}
}

func TestDebateSprintfSQLInjectionStillRequestsChanges(t *testing.T) {
	d := debateDiff(t, changetest.NewFileDiff("store/users.go", `package store

import (
	"database/sql"
	"fmt"
)

// ByEmail finds a user by email.
func ByEmail(db *sql.DB, email string) *sql.Row {
	return db.QueryRow(fmt.Sprintf("SELECT id FROM users WHERE email = '%s'", email))
}
`))
	if d.Decision.Decision != "request_changes" {
		t.Fatalf("decision %s, want request_changes for the SQL injection", d.Decision.Decision)
	}
	var tied bool
	for _, c := range d.Decision.RequiredChanges {
		tied = tied || strings.HasPrefix(c, "store/users.go:10: use a parameterised query")
	}
	if !tied {
		t.Errorf("required %v, want the parameterised query at store/users.go:10", d.Decision.RequiredChanges)
	}
}
