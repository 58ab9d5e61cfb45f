package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/debatebot/debatebot/review/pipeline"
	"github.com/debatebot/debatebot/review/realcases"
)

const benchUsage = `Usage: debatebot bench --cases PATH [--trees DIR] [--split dev|check|all] [--diff] [--goproxy] [--explain] [--rules] [--stages] [--context] [ID...]

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
up), the longest first. With --context, each defect case's line also says where the change
message a model-backed debate reads (the diff and the code around the change, within the default
llm.context_tokens, after the evidence) shows each defect location: in the diff, only in the code
around it, or not at all; the totals count them, of all and per language.
`

type benchFlags struct {
	cases, trees, split                            string
	diff, goproxy, explain, rules, stages, context bool
	ids                                            []string
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
	fs.BoolVar(&f.context, "context", false, "say where the change message a model reads shows each defect location")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil, errHelp
		}
		return nil, &pipeline.UsageError{Msg: err.Error()}
	}
	if f.cases == "" {
		return nil, &pipeline.UsageError{Msg: "bench: --cases is required"}
	}
	if !slices.Contains([]string{"dev", "check", "all"}, f.split) {
		return nil, &pipeline.UsageError{Msg: fmt.Sprintf("bench: --split %q is not dev, check or all", f.split)}
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
		if err := realcases.Offline(ctx, getenv); err != nil {
			return err
		}
	}
	cases, err := realcases.Load(f.cases)
	if err != nil {
		return &pipeline.UsageError{Msg: err.Error()}
	}
	return realcases.Bench(ctx, cases, realcases.BenchOptions{Trees: f.trees, Split: f.split, IDs: f.ids,
		Diff: f.diff, Stages: f.stages, Explain: f.explain, Rules: f.rules, Context: f.context}, stdout)
}
