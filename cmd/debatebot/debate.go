package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/toulmin"
)

var errHelp = errors.New("help requested")

// Version is set at build time with -ldflags "-X main.Version=...".
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func isInputError(err error) bool {
	var ie *review.InputError
	var ce *config.Error
	return errors.As(err, &ie) || errors.As(err, &ce)
}

type debateFlags struct {
	diff, git, question, format, protocol, configFile, dir, depth string
	offline, dirSet, checkpoints                                  bool
	maxDiff                                                       int64
}

func parseDebateFlags(args []string, stderr io.Writer) (*debateFlags, error) {
	f := &debateFlags{}
	fs := flag.NewFlagSet("debate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.diff, "diff", "", "unified diff to debate (FILE, or - for stdin)")
	fs.StringVar(&f.git, "git", "", "git range BASE..HEAD to debate, in the repository at --dir")
	fs.StringVar(&f.question, "question", "", "a design question to debate (no code)")
	fs.StringVar(&f.format, "format", "markdown", "output: markdown (transcript and record), json (decision record) or sarif (the standing findings, SARIF 2.1.0)")
	fs.StringVar(&f.protocol, "protocol", "", "standard, fast-track or extended (default: the config's, else standard)")
	fs.StringVar(&f.configFile, "config", "", "a debatebot.yml to use (default: the embedded defaults)")
	fs.StringVar(&f.depth, "depth", "", "quick (the openings alone), standard (one round of rebuttal) or deep (up to two, ending at convergence); default: the config's, else the protocol's rounds")
	fs.StringVar(&f.dir, "dir", ".", "with --git: the repository; with --diff: a checkout of the diff's base (the head is the diff applied to a copy of it, for whole-tree analysis)")
	fs.BoolVar(&f.offline, "offline", false, "use offline agents even when a model is configured")
	fs.BoolVar(&f.checkpoints, "checkpoints", false, "pause after each round and ask on the terminal: [C]ontinue, [G]uide (your guidance goes into the next round), [E]nd (synthesise now); answers are read from stdin")
	fs.Int64Var(&f.maxDiff, "max-diff-bytes", review.DefaultMaxDiffBytes, "largest diff accepted")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "Usage: debatebot debate (--diff FILE [--dir BASE] | --git BASE..HEAD | --question TEXT) [--format markdown|json|sarif] [flags]")
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return nil, errHelp
		}
		return nil, &usageError{strings.TrimSpace(err.Error()) + " (run 'debatebot debate -h' for the flags)"}
	}
	fs.Visit(func(fl *flag.Flag) { f.dirSet = f.dirSet || fl.Name == "dir" })
	if fs.NArg() > 0 {
		return nil, &usageError{fmt.Sprintf("unexpected argument %q (run 'debatebot debate -h' for the flags)", fs.Arg(0))}
	}
	n := 0
	for _, s := range []string{f.diff, f.git, f.question} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return nil, &usageError{"give exactly one of --diff FILE, --git BASE..HEAD or --question TEXT"}
	}
	if f.dirSet && f.question != "" {
		return nil, &usageError{"--dir goes with --git or --diff, not --question"}
	}
	if f.format != "markdown" && f.format != "json" && f.format != "sarif" {
		return nil, &usageError{fmt.Sprintf("--format %q: want markdown, json or sarif", f.format)}
	}
	if _, err := toulmin.ParseDepth(f.depth); err != nil {
		return nil, &usageError{"--depth: " + err.Error()}
	}
	if f.checkpoints && f.diff == "-" {
		return nil, &usageError{"--checkpoints reads the answers from stdin, so the diff cannot come from it: give --diff FILE"}
	}
	return f, nil
}

func debate(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	f, err := parseDebateFlags(args, stderr)
	if err != nil {
		return err
	}
	repo := config.Default()
	if f.configFile != "" {
		data, err := os.ReadFile(f.configFile)
		if err != nil {
			return &usageError{fmt.Sprintf("cannot read config %s: %v", f.configFile, unwrapPath(err))}
		}
		if repo, err = config.Parse(data, f.configFile); err != nil {
			return err
		}
	}
	if f.depth != "" {
		repo.Depth = f.depth
	}
	protocol, err := repo.DebateProtocol(f.protocol)
	if err != nil {
		return &usageError{"--protocol: " + err.Error()}
	}

	var change *review.Change
	switch {
	case f.diff != "":
		base := ""
		if f.dirSet {
			base = f.dir
		}
		change, err = readDiff(f.diff, stdin, f.maxDiff, base)
		if err == nil && base == "" {
			change.NoTrees = review.HunksOnlyNote
		}
	case f.git != "":
		change, err = review.FromGit(ctx, f.dir, f.git)
	}
	if err != nil {
		return err
	}
	agents, err := panel(repo, getenv, f.offline)
	if err != nil {
		return err
	}
	d := &review.Debate{
		Change: change, Question: f.question, Trigger: "cli",
		Protocol: protocol, Agents: agents, Panel: repo.Panel(), Ignore: repo.Ignore,
		Weights: *repo.Weights, Thresholds: repo.VotingThresholds(), Concurrency: repo.LLM.Concurrency,
	}
	if isTerminal(stderr) {
		d.Observer = progress(stderr)
	}
	if f.checkpoints {
		if protocol.Loop == nil {
			return &usageError{fmt.Sprintf("--checkpoints: the %s protocol (depth %q) has no rounds to pause between", protocol.Name, protocol.Depth)}
		}
		d.Protocol.Checkpoints = true
		d.Pause = terminalPause(stdin, stderr)
	}
	t, err := d.Run(ctx)
	if err != nil {
		return err
	}
	// What is printed leaves the process like a comment does (into CI logs, pastes, issues):
	// a secret a model quoted is redacted here too.
	if f.format == "sarif" {
		log, err := review.SARIF(t, change, review.SARIFOptions{Version: version()})
		if err != nil {
			return err
		}
		redacted, err := review.RedactJSON(log)
		if err != nil {
			return err
		}
		_, err = stdout.Write(redacted)
		return err
	}
	if f.format == "json" {
		b, err := t.Record.JSON()
		if err != nil {
			return err
		}
		redacted, err := review.RedactJSON(b)
		if err != nil {
			return err
		}
		var out bytes.Buffer
		if err := json.Indent(&out, bytes.TrimSpace(redacted), "", "  "); err != nil {
			return fmt.Errorf("failed to indent the decision record: %w", err)
		}
		out.WriteByte('\n')
		_, err = stdout.Write(out.Bytes())
		return err
	}
	md, err := review.Markdown(t, review.RenderOptions{})
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, review.Redact(md))
	return err
}

// panel returns the repository's stakeholders as agents: on the model at OPENAI_BASE_URL
// (DEBATEBOT_MODEL) when OPENAI_API_KEY is set and offline is not asked for, offline otherwise.
func panel(repo *config.Repo, getenv func(string) string, offline bool) ([]toulmin.Agent, error) {
	key := getenv("OPENAI_API_KEY")
	if key == "" || offline {
		return review.OfflinePanel(repo.Stakeholders), nil
	}
	return review.LLMPanel(repo.Stakeholders, review.LLMOptions{
		APIKey: key, BaseURL: getenv("OPENAI_BASE_URL"), Model: getenv("DEBATEBOT_MODEL"),
		MaxRetries: repo.LLM.MaxRetries, RequestTimeout: time.Duration(repo.LLM.RequestTimeout),
		ContextTokens: repo.LLM.ContextTokens, Prices: repo.LLM.PriceTable(),
	})
}

// readDiff reads the diff at name (- for stdin); with base, a checkout of the diff's base, the
// change carries both trees (the head is the diff applied to a copy of base).
func readDiff(name string, stdin io.Reader, max int64, base string) (*review.Change, error) {
	read := func(r io.Reader, source string) (*review.Change, error) {
		if base != "" {
			return review.ReadDiffOnBase(r, source, max, base)
		}
		return review.ReadDiff(r, source, max)
	}
	if name == "-" {
		return read(stdin, "stdin")
	}
	st, err := os.Stat(name)
	if err != nil {
		return nil, &review.InputError{Source: name, Problem: "cannot read: " + unwrapPath(err).Error()}
	}
	if st.IsDir() {
		return nil, &review.InputError{Source: name, Problem: "is a directory, not a diff file"}
	}
	file, err := os.Open(name)
	if err != nil {
		return nil, &review.InputError{Source: name, Problem: "cannot read: " + unwrapPath(err).Error()}
	}
	defer file.Close()
	return read(file, name)
}

// unwrapPath drops the path from *fs.PathError, which the caller already names.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress shows each phase as it starts and ends.
func progress(w io.Writer) func(toulmin.Event) {
	return func(e toulmin.Event) {
		switch e.Kind {
		case toulmin.EventPhaseStarted:
			fmt.Fprintf(w, "\r\033[K… %s", e.Phase.Phase.Title())
		case toulmin.EventPhaseEnded:
			fmt.Fprintf(w, "\r\033[K%s %s (%s)\n", mark(e.Phase.Status), e.Phase.Phase.Title(), e.Phase.Duration().Round(time.Millisecond))
		}
	}
}

func mark(s toulmin.PhaseStatus) string {
	if s == toulmin.StatusCompleted {
		return "✓"
	}
	return "✗ " + string(s)
}
