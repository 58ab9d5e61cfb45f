package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review/pipeline"
	"github.com/debatebot/debatebot/store"
)

// stats prints the debate metrics of the store named by DEBATEBOT_DATABASE_URL.
func stats(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("stats", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "text", "text or json")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "Usage: debatebot stats [--format text|json]  (reads DEBATEBOT_DATABASE_URL)")
			return errHelp
		}
		return &pipeline.UsageError{Msg: err.Error() + " (run 'debatebot stats -h')"}
	}
	if *format != "text" && *format != "json" {
		return &pipeline.UsageError{Msg: fmt.Sprintf("--format %q: want text or json", *format)}
	}
	url := getenv("DEBATEBOT_DATABASE_URL")
	if url == "" {
		url = config.DefaultDatabaseURL
	}
	st, err := store.Open(ctx, url)
	if err != nil {
		return err
	}
	defer st.Close()
	s, err := st.Stats(ctx)
	if err != nil {
		return err
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "debates decided       %d\n", s.Debates)
	fmt.Fprintf(&b, "consensus rate        %.1f%%\n", 100*s.ConsensusRate)
	fmt.Fprintf(&b, "auto-escalation rate  %.1f%%\n", 100*s.AutoEscalationRate)
	fmt.Fprintf(&b, "human decisions       %d (reversal rate %.1f%%)\n", s.HumanDecided, 100*s.ReversalRate)
	fmt.Fprintf(&b, "tokens per debate     %.0f\n", s.TokensPerDebate)
	protocols := make([]string, 0, len(s.MeanSecondsByProtocol))
	for p := range s.MeanSecondsByProtocol {
		protocols = append(protocols, p)
	}
	sort.Strings(protocols)
	for _, p := range protocols {
		fmt.Fprintf(&b, "mean duration         %.1fs (%s)\n", s.MeanSecondsByProtocol[p], p)
	}
	decisions := make([]string, 0, len(s.Decisions))
	for d, n := range s.Decisions {
		decisions = append(decisions, fmt.Sprintf("%s %d", d, n))
	}
	sort.Strings(decisions)
	fmt.Fprintf(&b, "decisions             %s\n", strings.Join(decisions, ", "))
	writeDialecticStats(&b, s.Dialectic)
	_, err = io.WriteString(stdout, b.String())
	return err
}

// writeDialecticStats adds seed 000's failure and planning debates to the text report.
func writeDialecticStats(b *strings.Builder, d store.DialecticStats) {
	types := make([]string, 0, len(d.ByType))
	for t := range d.ByType {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		var res []string
		for r, n := range d.ByType[t] {
			res = append(res, fmt.Sprintf("%s %d", r, n))
		}
		sort.Strings(res)
		fmt.Fprintf(b, "%-21s %s\n", t+" debates", strings.Join(res, ", "))
	}
	if d.WithOutcome > 0 {
		fmt.Fprintf(b, "failure debates rerun %d (helped %.1f%%, false positives %.1f%%)\n", d.WithOutcome, 100*d.HelpedRate, 100*d.FalsePositiveRate)
	}
}
