package evidence

import (
	"bufio"
	"fmt"
	"go/build"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

func init() {
	rules.Rules[rules.RuleAnalysisBlinded] = rules.Rule{ID: rules.RuleAnalysisBlinded, Stakeholder: rules.Security, Severity: voting.SeverityHigh, Title: "Change hides a package from the analysis",
		Warrant:   "The base's package was type-checked and analysed; the change makes the analysis unable to load it, so nothing the change does there was checked: a change that blinds its own review must be looked at by a person before it is approved",
		Reference: "CWE-693: Protection Mechanism Failure", Fix: "undo what stops the package from loading (the build constraint, the go.mod line), or say why the package is no longer built",
		Rebuttal: "unless the package is no longer built on purpose", TradeOff: "none"}
}

// goModLine finds a go.mod position ("go.mod:3", "sub/go.mod:3:5") in a reason.
var goModLine = regexp.MustCompile(`((?:[\w.-]+/)*go\.mod):(\d+)`)

// blinded returns a finding for each package base analysed whose directory head still has Go
// files in but did not analyse, at the place that most likely made it so: the go.mod line the
// go command complained of, else a file of the directory that head's build excludes (at its
// build constraint), else the module's go.mod.
func blinded(opts Options, base, head *TreeReport, env []string) []scan.Finding {
	headDirs := map[string]bool{}
	for _, d := range head.dirs {
		headDirs[d] = true
	}
	bctx := buildContext(env, false)
	headAbs, err := filepath.Abs(opts.HeadDir)
	if err != nil {
		return nil
	}
	var out []scan.Finding
	for _, pkg := range base.Packages {
		dir, ok := base.dirs[pkg]
		if !ok || headDirs[dir] {
			continue
		}
		files := goFilesIn(filepath.Join(headAbs, filepath.FromSlash(dir)))
		if len(files) == 0 {
			continue // the package is gone from head, not hidden
		}
		why := headReason(head, pkg, dir)
		p, line := blindSpot(headAbs, opts.Files, dir, files, why, bctx)
		msg := fmt.Sprintf("the change stops the type-checked analysis of %s (%s), which the base analysed", pkg, dirName(dir))
		if why != "" {
			msg += ": " + scan.Clip(why, 300)
		}
		msg += "; nothing the change does in that package was analysed"
		out = append(out, scan.Finding{Rule: rules.RuleAnalysisBlinded, Source: rules.SourceDebatebot, Severity: voting.SeverityHigh, Topic: rules.TopicCorrectness, Path: p, Line: line, Message: msg})
	}
	return append(out, blindedFiles(headAbs, base, head, headDirs)...)
}

// blindedFiles returns a finding for each file of a package both trees analysed that the base
// built and the head, though it still has the file, does not (a build constraint added, an
// import "C" that could not be put back), at its build constraint.
func blindedFiles(headAbs string, base, head *TreeReport, headDirs map[string]bool) []scan.Finding {
	var files []string
	for f := range base.files {
		if !head.files[f] && headDirs[path.Dir(f)] {
			if st, err := os.Stat(filepath.Join(headAbs, filepath.FromSlash(f))); err == nil && st.Mode().IsRegular() {
				files = append(files, f)
			}
		}
	}
	slices.Sort(files)
	var out []scan.Finding
	for _, f := range files {
		msg := fmt.Sprintf("the change takes %s out of the type-checked analysis of its package, which built it in the base; nothing the change does in that file was analysed", f)
		out = append(out, scan.Finding{Rule: rules.RuleAnalysisBlinded, Source: rules.SourceDebatebot, Severity: voting.SeverityHigh, Topic: rules.TopicCorrectness,
			Path: f, Line: constraintLine(filepath.Join(headAbs, filepath.FromSlash(f))), Message: msg})
	}
	return out
}

func dirName(dir string) string {
	if dir == "." || dir == "" {
		return "the root directory"
	}
	return dir + "/"
}

// goFilesIn lists the non-test .go files of dir.
func goFilesIn(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if n := e.Name(); e.Type().IsRegular() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			out = append(out, n)
		}
	}
	return out
}

// headReason is what head's analysis said of the package (by import path or load pattern).
func headReason(head *TreeReport, pkg, dir string) string {
	for _, d := range head.Degraded {
		pat := strings.TrimPrefix(d.Package, "./")
		if d.Package == pkg || d.Package == dir || strings.HasPrefix(d.Package, "./") && (pat == dir || strings.HasSuffix(dir, "/"+pat) || pat == ".") {
			return d.Reason
		}
	}
	return ""
}

// blindSpot places the finding of the hidden package in dir (tree-relative): see blinded.
func blindSpot(headAbs string, changed []string, dir string, files []string, why string, bctx *build.Context) (string, int) {
	if m := goModLine.FindStringSubmatch(why); m != nil {
		if n, err := strconv.Atoi(m[2]); err == nil {
			return m[1], n
		}
	}
	abs := filepath.Join(headAbs, filepath.FromSlash(dir))
	var excluded []string
	for _, f := range files {
		if ok, err := bctx.MatchFile(abs, f); err == nil && !ok {
			excluded = append(excluded, path.Join(dir, f))
		}
	}
	// A file the change touched is the likelier cause.
	slices.SortStableFunc(excluded, func(a, b string) int {
		ca, cb := slices.Contains(changed, a), slices.Contains(changed, b)
		switch {
		case ca && !cb:
			return -1
		case cb && !ca:
			return 1
		}
		return 0
	})
	if len(excluded) > 0 {
		return excluded[0], constraintLine(filepath.Join(headAbs, filepath.FromSlash(excluded[0])))
	}
	if mod, ok := moduleRoot(headAbs, abs); ok {
		return relSlash(headAbs, filepath.Join(mod, "go.mod")), 1
	}
	return path.Join(dir, files[0]), 1
}

// constraintLine is the line of the file's build constraint or import "C", else 1.
func constraintLine(name string) int {
	f, err := os.Open(name)
	if err != nil {
		return 1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "//go:build") || strings.HasPrefix(l, "// +build") || l == `import "C"` {
			return n
		}
	}
	return 1
}
