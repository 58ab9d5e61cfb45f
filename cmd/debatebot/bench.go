package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/review/realcases"
	"github.com/debatebot/debatebot/toulmin"
)

const benchUsage = `Usage: debatebot bench --cases PATH [--trees DIR] [--split dev|check|all] [--diff] [--goproxy] [--explain] [--rules] [--stages] [ID...]

Debates the real cases of PATH (a case file, or a folder of *.tsv) offline with the embedded
defaults, each on its trees at DIR/<id> (git repositories with tags base and head, as
../shared/realcases/materialize builds them), prints one line per case, then the totals of dev,
check and all, per language and per class. A defect is found when a finding of substance cites a
defect line within 3 lines and the decision is not approve; a benign case fails on
request_changes or a failed run. Each line and total also gives the changed Go packages fully
type-checked in head, the wall time and the processor time (user and system, of the bench and
the tools it ran; median and maximum per case in the totals, of all and per language). Go modules are taken
from the go command's module cache only (or DEBATEBOT_GOMODCACHE), unless --goproxy lets them
be downloaded through DEBATEBOT_GOPROXY into DEBATEBOT_GOMODCACHE.

With --explain, each case's line is followed by its findings of substance (severity, rule,
analyzer, path:line; those citing a defect marked), and the totals by the rule table. With
--rules, the rule table alone follows the totals: per rule, the defect cases found with it and
their repositories, the defect cases where it cites a defect line (found or not), its findings on
defect cases away from the defect lines, the benign cases it fires on and those of them held back
(request_changes), and its total findings. With --stages, each case's line is followed by the
wall time of each stage of its evidence gathering (the go command's loads, each Go analyzer, gosec,
each external tool, each analyzer of the change; stages of base and head that run side by side add
up), the longest first.
`

type benchFlags struct {
	cases, trees, split                   string
	diff, goproxy, explain, rules, stages bool
	ids                                   []string
}

func parseBenchFlags(args []string, stderr io.Writer, getenv func(string) string) (*benchFlags, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, benchUsage) }
	f := &benchFlags{}
	trees := getenv("REALCASES_TREES")
	if trees == "" {
		trees = filepath.Join(os.TempDir(), "realcases")
	}
	fs.StringVar(&f.cases, "cases", "", "a case file, or a folder of them")
	fs.StringVar(&f.trees, "trees", trees, "where the cases' trees are")
	fs.StringVar(&f.split, "split", "all", "dev, check or all")
	fs.BoolVar(&f.diff, "diff", false, "debate the hunks only (git diff base head), not the whole trees")
	fs.BoolVar(&f.goproxy, "goproxy", false, "download the trees' Go modules through DEBATEBOT_GOPROXY (the public proxy when unset); without it no module is downloaded")
	fs.BoolVar(&f.explain, "explain", false, "list each case's findings of substance, then the rule table")
	fs.BoolVar(&f.stages, "stages", false, "after each case's line, the wall time of each stage of its evidence gathering")
	fs.BoolVar(&f.rules, "rules", false, "after the totals, the rule table: what each rule found, missed and held back")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil, errHelp
		}
		return nil, &usageError{err.Error()}
	}
	if f.cases == "" {
		return nil, &usageError{"bench: --cases is required"}
	}
	if !slices.Contains([]string{"dev", "check", "all"}, f.split) {
		return nil, &usageError{fmt.Sprintf("bench: --split %q is not dev, check or all", f.split)}
	}
	f.ids = fs.Args()
	return f, nil
}

// bench runs the real-code benchmark: see benchUsage.
func bench(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	f, err := parseBenchFlags(args, stderr, getenv)
	if err != nil {
		return err
	}
	if !f.goproxy {
		if err := benchOffline(ctx, getenv); err != nil {
			return err
		}
	}
	cases, err := realcases.Load(f.cases)
	if err != nil {
		return &usageError{err.Error()}
	}
	var results []realcases.Result
	for _, c := range cases {
		if (f.split != "all" && c.Split() != f.split) || (len(f.ids) > 0 && !slices.Contains(f.ids, c.ID)) {
			continue
		}
		var cov evidence.Coverage
		var times scan.Timings
		start, cpu := time.Now(), scan.ProcessCPU()
		tr, err := benchCase(scan.WithTimings(evidence.WithCoverage(ctx, &cov), &times), filepath.Join(f.trees, c.ID), f.diff)
		r := realcases.Judge(c, tr, err)
		r.Wall, r.CPU, r.TypesFull, r.TypesChanged = time.Since(start), scan.ProcessCPU()-cpu, cov.Full, cov.Changed
		results = append(results, r)
		if _, err := fmt.Fprintln(stdout, r.Line()); err != nil {
			return err
		}
		if f.stages {
			if _, err := fmt.Fprintf(stdout, "  stages: %s\n", &times); err != nil {
				return err
			}
		}
		if f.explain {
			if err := realcases.WriteExplain(stdout, r); err != nil {
				return err
			}
		}
	}
	if len(results) == 0 {
		return &usageError{"bench: no case selected"}
	}
	if err := realcases.WriteTotals(stdout, results); err != nil {
		return err
	}
	if f.explain || f.rules {
		return realcases.WriteRuleTable(stdout, results)
	}
	return nil
}

// benchCase debates one case's base..head offline with the embedded defaults: on the whole
// trees, as debate --git does, or with diff on the hunks only, as debate --diff does.
func benchCase(ctx context.Context, dir string, diff bool) (*toulmin.Transcript, error) {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		return nil, fmt.Errorf("no case repository at %s (build it with ../shared/realcases/materialize)", dir)
	}
	src := &localSource{Kind: "git", Name: "base..head", Base: dir, Range: "base..head"}
	if diff {
		out, err := exec.CommandContext(ctx, "git", "-C", dir, "diff", "--no-color", "--no-ext-diff", "base", "head").Output()
		if err != nil {
			return nil, fmt.Errorf("git diff base head in %s: %w", dir, err)
		}
		src = &localSource{Kind: "diff", Name: "base..head", Diff: string(out)}
	}
	change, err := src.change(ctx, review.DefaultMaxDiffBytes)
	if err != nil {
		return nil, err
	}
	repo := config.Default()
	protocol, err := repo.DebateProtocol("")
	if err != nil {
		return nil, err
	}
	return newDebate(repo, protocol, change, review.OfflinePanel(repo.Stakeholders)).Run(ctx)
}

// benchOffline makes the bench download no module: types come from the go command's own module
// cache (unless DEBATEBOT_GOMODCACHE names another) and the trees' vendor folders, as the bench
// measured before modules were downloaded.
func benchOffline(ctx context.Context, getenv func(string) string) error {
	if err := os.Setenv("DEBATEBOT_GOPROXY", "off"); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if getenv("DEBATEBOT_GOMODCACHE") != "" {
		return nil
	}
	out, err := exec.CommandContext(ctx, "go", "env", "GOMODCACHE").Output()
	if dir := strings.TrimSpace(string(out)); err == nil && dir != "" {
		if err := os.Setenv("DEBATEBOT_GOMODCACHE", dir); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	return nil
}
