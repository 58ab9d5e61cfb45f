package realcases

import (
	"context"
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
	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/review/local"
	"github.com/debatebot/debatebot/review/pipeline"
	"github.com/debatebot/debatebot/toulmin"
)

// debateCase debates one case's base..head offline with the embedded defaults: on the whole
// trees, as debate --git does, or with diff on the hunks only, as debate --diff does. The change
// it debated comes with the transcript.
func debateCase(ctx context.Context, dir string, diff bool) (*toulmin.Transcript, *change.Change, error) {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		return nil, nil, fmt.Errorf("no case repository at %s (build it with ../shared/realcases/materialize)", dir)
	}
	src := &local.Source{Kind: "git", Name: "base..head", Base: dir, Range: "base..head"}
	if diff {
		out, err := exec.CommandContext(ctx, "git", "-C", dir, "diff", "--no-color", "--no-ext-diff", "base", "head").Output()
		if err != nil {
			return nil, nil, fmt.Errorf("git diff base head in %s: %w", dir, err)
		}
		src = &local.Source{Kind: "diff", Name: "base..head", Diff: string(out)}
	}
	ch, err := src.Change(ctx, review.DefaultMaxDiffBytes)
	if err != nil {
		return nil, nil, err
	}
	repo := config.Default()
	protocol, err := repo.DebateProtocol("")
	if err != nil {
		return nil, nil, err
	}
	d := pipeline.NewDebate(repo, protocol, agents.OfflinePanel(repo.Stakeholders), "cli")
	d.Change = ch
	tr, err := d.Run(ctx)
	return tr, d.Change, err
}

// Offline makes the bench download no module: types come from the go command's own module
// cache (unless DEBATEBOT_GOMODCACHE names another) and the trees' vendor folders, as the bench
// measured before modules were downloaded.
func Offline(ctx context.Context, getenv func(string) string) error {
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

// BenchOptions select the cases of a bench run and what it prints beside each case's line.
type BenchOptions struct {
	// Trees holds each case's repository at Trees/<id>; Split is dev, check or all; IDs, when
	// given, are the only cases run.
	Trees, Split string
	IDs          []string
	// Diff debates the hunks only; Stages, Explain and Rules add the stages' times, the
	// findings of substance and the rule table; Context, where the change message a model would
	// read shows each defect location (Sights).
	Diff, Stages, Explain, Rules, Context bool
}

// Bench debates the selected cases offline with the embedded defaults, each on its trees,
// prints one line per case, then the totals (and the rule table when asked for). No case
// selected is an error.
func Bench(ctx context.Context, cases []Case, o BenchOptions, stdout io.Writer) error {
	var results []Result
	for _, c := range cases {
		if (o.Split != "all" && c.Split() != o.Split) || (len(o.IDs) > 0 && !slices.Contains(o.IDs, c.ID)) {
			continue
		}
		r, err := benchCase(ctx, c, o, stdout)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	if len(results) == 0 {
		return &pipeline.UsageError{Msg: "bench: no case selected"}
	}
	if err := WriteTotals(stdout, results); err != nil {
		return err
	}
	if o.Explain || o.Rules {
		return WriteRuleTable(stdout, results)
	}
	return nil
}

// benchCase debates and judges one case, with its coverage, wall and processor times, and
// prints its line (and its stages and findings when asked for).
func benchCase(ctx context.Context, c Case, o BenchOptions, stdout io.Writer) (Result, error) {
	var cov evidence.Coverage
	var times scan.Timings
	start, cpu := time.Now(), scan.ProcessCPU()
	tr, ch, err := debateCase(scan.WithTimings(evidence.WithCoverage(ctx, &cov), &times), filepath.Join(o.Trees, c.ID), o.Diff)
	r := Judge(c, tr, err)
	r.Wall, r.CPU, r.TypesFull, r.TypesChanged = time.Since(start), scan.ProcessCPU()-cpu, cov.Full, cov.Changed
	if o.Context && c.Defect() && err == nil && tr != nil {
		tok, terr := llm.DefaultTokenizer()
		if terr != nil {
			return r, terr
		}
		if r.Sights, err = Sights(ctx, c, ch, tr.Evidence, tok); err != nil {
			return r, err
		}
	}
	if _, err := fmt.Fprintln(stdout, r.Line()); err != nil {
		return r, err
	}
	if o.Stages {
		if _, err := fmt.Fprintf(stdout, "  stages: %s\n", &times); err != nil {
			return r, err
		}
	}
	if o.Explain {
		if err := WriteExplain(stdout, r); err != nil {
			return r, err
		}
	}
	return r, nil
}
