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

	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
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
func own(fs []scan.Finding) ([]string, map[string]scan.Finding) {
	var out []string
	by := map[string]scan.Finding{}
	for _, f := range fs {
		if f.Source != rules.SourceDebatebot {
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

func analyzeOwn(t *testing.T, dir string, files ...string) ([]string, map[string]scan.Finding) {
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

// Methods that read a field before locking the mutex the package writes it under: found for a
// plain read, a fast path, a field written after an early-return unlock, an embedded RWMutex and
// another object's field read without its lock; not for a helper called with the lock held (a
// method, or a function given the object), a field never written under the lock, an atomic flag,
// reads after the lock, or an object the function has just made. A field accessed with no lock
// at all, after the unlock, on another object reached through a field (the program's own
// locker type guarding it), or by a function given the object by a caller that does not lock it:
// found; a helper named Locked, one every caller calls with the lock held, one called on a value
// just made, a read under the read lock: not.
func TestLockAfterRead(t *testing.T) {
	got, by := analyzeOwn(t, "testdata/lock", "cache/cache.go", "guard/guard.go")
	sameFindings(t, got, wantMarkers(t, "testdata/lock"))
	f := by[RuleLockAfterRead+" cache/cache.go:44"]
	if f.Func != "Cache.Len" || f.Severity != voting.SeverityHigh || f.Topic != rules.TopicConcurrency ||
		f.Message != "`Cache.Len` reads `c.items` before `c.mu.Lock()` at line 45; `c.items` is written with `c.mu` held (in `Cache.Put`), so this read races with that write" {
		t.Errorf("Len finding = %+v", f)
	}
	if f := by[RuleLockAfterRead+" guard/guard.go:142"]; f.Func != "Entry.Render" ||
		f.Message != "`Entry.Render` reads `e.logger.format` without holding `e.logger.mu`; `e.logger.format` is written with `mu` held (in `Logger.SetFormat`), so this access races with that write" {
		t.Errorf("Render finding = %+v", f)
	}
}

// Queries and remote calls per iteration of a loop over a variable collection, directly, through
// helpers of the same or another changed package, or through an interface: found; a batched
// query, a loop over an array, a literal or a constant count, a prepared statement, writes in one
// transaction and calls in goroutines: not.
func TestWorkPerIteration(t *testing.T) {
	got, by := analyzeOwn(t, "testdata/loops", "store/store.go", "app/app.go")
	sameFindings(t, got, wantMarkers(t, "testdata/loops"))
	if f := by[RuleQueryInLoop+" app/app.go:18"]; f.Severity != voting.SeverityMedium || f.Topic != rules.TopicPerformance ||
		f.Message != "`st.UserName` runs a database query (`store.Store.UserName → sql.DB.QueryRowContext`) on every iteration over `ids`: one round trip per element" {
		t.Errorf("Names finding = %+v", f)
	}
	if f := by[RuleQueryInLoop+" store/store.go:36"]; !strings.Contains(f.Message, "(`store.Store.lookup → store.Store.UserName → sql.DB.QueryRowContext`)") {
		t.Errorf("Labels finding = %+v", f)
	}
}

// A helper in a package the change does not touch is not loaded from source: its queries are
// not seen, and only calls that query directly are reported.
func TestWorkPerIterationNeedsTheHelperLoaded(t *testing.T) {
	got, _ := analyzeOwn(t, "testdata/loops", "app/app.go")
	for _, k := range got {
		direct := k == RuleQueryInLoop+" app/app.go:27" || k == RuleQueryInLoop+" app/app.go:264" // db.ExecContext, tx.QueryRowContext
		if strings.HasPrefix(k, RuleQueryInLoop+" ") && !direct {
			t.Errorf("%s reported without the helper's package loaded", k)
		}
	}
}

var weakenedFiles = []string{"guards/guards.go", "conc/conc.go"}

func runWeakened(t testing.TB) *Result {
	t.Helper()
	res, err := Run(context.Background(), Options{BaseDir: "testdata/weakened/base", HeadDir: "testdata/weakened/head", Files: weakenedFiles})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// The head of testdata/weakened removes or weakens what the base had: checks before a file
// open, a fetch, an HTML write, a command (moved after it) and a helper's file read; a lock's
// place. Each is found at the head line that lost it, and nothing is found where the check moved
// to every caller, was replaced by a check of the project's own, or guarded a constant path.
func TestWeakenedProtections(t *testing.T) {
	res := runWeakened(t)
	got, by := own(res.New)
	sameFindings(t, got, wantMarkers(t, "testdata/weakened/head"))
	checks := []struct {
		key, fn  string
		severity voting.Severity
		msg      string
	}{
		{RuleGuardRemoved + " guards/guards.go:26", "ServeFile", voting.SeverityHigh,
			"the change removed the check `!filepath.IsLocal(name)` from the path to os.Open (path traversal, CWE-22): the base checked the value before this call, the head passes it unchecked"},
		{RuleGuardRemoved + " guards/guards.go:38", "Proxy", voting.SeverityHigh,
			"the change removed url.Parse, the check `err != nil` and the check `!allowedHosts[u.Hostname()]` from the path to http.Get (server-side request forgery, CWE-918): the base checked the value before this call, the head passes it unchecked"},
		{RuleGuardRemoved + " guards/guards.go:49", "Greet", voting.SeverityHigh, "the change removed html.EscapeString from the path to fmt.Fprintf (cross-site scripting, CWE-79)"},
		{RuleGuardRemoved + " guards/guards.go:57", "Run", voting.SeverityHigh, "the change removed the check `!validTool(tool)` from the path to exec.Command (command injection, CWE-78)"},
		{RuleGuardRemoved + " guards/guards.go:71", "serve", voting.SeverityHigh, "the change removed the check `strings.Contains(name, \"..\")` in Show from the path to serve → os.ReadFile (path traversal, CWE-22)"},
		{RuleLockMovedAfterRead + " conc/conc.go:61", "Counter.Snapshot", voting.SeverityHigh, "the change moves the read of count before mu.Lock(): the base read it with mu held"},
	}
	for _, c := range checks {
		f, ok := by[c.key]
		if !ok {
			t.Errorf("no finding %s", c.key)
			continue
		}
		if f.Func != c.fn || f.Severity != c.severity || !strings.Contains(f.Message, c.msg) || f.Source != rules.SourceDebatebot {
			t.Errorf("%s = %+v\nwant func %q severity %s message containing %q", c.key, f, c.fn, c.severity, c.msg)
		}
	}
	// The findings the comparison restates at the same line are left out (the read before the
	// lock, gosec's findings of the weakness a removed check opens).
	for _, f := range res.New {
		switch {
		case f.Rule == RuleLockAfterRead,
			// gosec's findings of the weakness a removed check opens, at the same line.
			f.Path == "guards/guards.go" && (f.Rule == "gosec:G304" || f.Rule == "gosec:G703") && f.Line == 26,
			f.Path == "guards/guards.go" && (f.Rule == "gosec:G107" || f.Rule == "gosec:G704") && f.Line == 38,
			f.Path == "guards/guards.go" && (f.Rule == "gosec:G204" || f.Rule == "gosec:G702") && f.Line == 57:
			t.Errorf("restated finding kept: %+v", f)
		}
		// load's check moved to its caller, Report: its file read is not reachable on more paths.
		if f.Func == "load" {
			t.Errorf("finding in load, whose caller checks: %+v", f)
		}
	}
}

// The comparison's findings are new by construction: analysing a tree against itself finds
// none.
func TestWeakenedNothingAgainstItself(t *testing.T) {
	res, err := Run(context.Background(), Options{BaseDir: "testdata/weakened/head", HeadDir: "testdata/weakened/head", Files: weakenedFiles})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.New) != 0 {
		t.Errorf("new findings of a tree against itself: %+v", res.New)
	}
}

// A finding the base had only under a condition the head dropped is new: the change made it
// reachable on more paths (a per-repository loop once run only for ordinary teams now runs for
// the owners' team too). A condition rewritten as an early return, or a renamed variable in it,
// leaves it pre-existing.
func TestFindingReachableOnMorePaths(t *testing.T) {
	const store = "package p\n\nimport (\n\t\"context\"\n\t\"database/sql\"\n)\n\n" +
		"func name(ctx context.Context, db *sql.DB, id int64) string {\n\tvar n string\n\t_ = db.QueryRowContext(ctx, \"SELECT name FROM t WHERE id = ?\", id).Scan(&n)\n\treturn n\n}\n\n" +
		"// Names reads names one by one unless all are wanted.\nfunc Names(ctx context.Context, db *sql.DB, ids []int64, all bool) []string {\n\tvar out []string\n%s\treturn out\n}\n"
	loop := "\tfor _, id := range ids {\n\t\tout = append(out, name(ctx, db, id))\n\t}\n"
	cases := []struct {
		name, base, head string
		fresh            bool
	}{
		{"condition dropped", "\tif all {\n\t\treturn nil\n\t} else {\n" + loop + "\t}\n", loop, true},
		{"else as early return", "\tif !all {\n" + loop + "\t}\n", "\tif all {\n\t\treturn nil\n\t}\n" + loop, false},
		{"condition renamed", "\tif !all {\n" + loop + "\t}\n", "\tif every := all; !every {\n" + loop + "\t}\n", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base, head := t.TempDir(), t.TempDir()
			for dir, body := range map[string]string{base: c.base, head: c.head} {
				changetest.Write(t, dir+"/go.mod", "module example.com/paths\n\ngo 1.22\n")
				changetest.Write(t, dir+"/p/p.go", fmt.Sprintf(store, body))
			}
			res, err := Run(context.Background(), Options{BaseDir: base, HeadDir: head, Files: []string{"p/p.go"}})
			if err != nil {
				t.Fatal(err)
			}
			var fresh []scan.Finding
			for _, f := range res.New {
				if f.Rule == RuleQueryInLoop {
					fresh = append(fresh, f)
				}
			}
			if c.fresh != (len(fresh) == 1) {
				t.Fatalf("new query-in-loop findings %+v, want new: %v", fresh, c.fresh)
			}
			if c.fresh && !strings.HasSuffix(fresh[0].Message, "; the change made it reachable on more paths: the base ran it only when `!all`") {
				t.Errorf("message %q", fresh[0].Message)
			}
		})
	}
}
