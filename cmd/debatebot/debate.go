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
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/store"
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
	// resume is a debate's id to resume from the local store; list lists the store's debates;
	// storeURL is the store (default: DEBATEBOT_DATABASE_URL, else sqlite:debatebot.db).
	resume, storeURL string
	list             bool
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
	fs.StringVar(&f.resume, "resume", "", "resume the debate ID kept in the local store where it stopped (an interrupt, a [Q]uit at a checkpoint, a crash), or print it when it was decided")
	fs.BoolVar(&f.list, "list", false, "list the debates kept in the local store, newest first")
	fs.StringVar(&f.storeURL, "store", "", "where debates are kept for --resume and --list: sqlite:PATH, postgres://..., or off (default: $DEBATEBOT_DATABASE_URL, else "+defaultStore+")")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "Usage: debatebot debate (--diff FILE [--dir BASE] | --git BASE..HEAD | --question TEXT | --resume ID | --list) [--format markdown|json|sarif] [flags]")
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
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	if f.list || f.resume != "" {
		// The debate's own flags come from the store; only how to run and show it may be given.
		what, allowed := "--resume", map[string]bool{"resume": true, "format": true, "offline": true, "checkpoints": true, "store": true}
		if f.list {
			what, allowed = "--list", map[string]bool{"list": true, "store": true}
		}
		for name := range given {
			if !allowed[name] {
				return nil, &usageError{fmt.Sprintf("--%s does not go with %s (a kept debate is resumed with the change, configuration and protocol it began with)", name, what)}
			}
		}
		if f.storeURL == "off" {
			return nil, &usageError{what + " needs the store: --store off leaves nothing to read"}
		}
		if f.format != "markdown" && f.format != "json" && f.format != "sarif" {
			return nil, &usageError{fmt.Sprintf("--format %q: want markdown, json or sarif", f.format)}
		}
		return f, nil
	}
	n := 0
	for _, s := range []string{f.diff, f.git, f.question} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return nil, &usageError{"give exactly one of --diff FILE, --git BASE..HEAD or --question TEXT (or --resume ID, --list)"}
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
	if f.list {
		return listDebates(ctx, f, stdout, getenv)
	}
	var (
		src   *localSource
		prior *store.Debate
		st    *store.Store
	)
	if f.resume != "" {
		if st, err = openLocalStore(ctx, f, getenv); err != nil {
			return err
		}
		defer st.Close()
		if src, prior, err = resumable(ctx, st, f); err != nil {
			return err
		}
	} else {
		if src, err = newSource(ctx, f, stdin); err != nil {
			return err
		}
		// A debate that cannot be kept still runs: its output is what the user asked for. Only
		// --resume and --list need the store.
		if st, err = openLocalStore(ctx, f, getenv); err != nil {
			fmt.Fprintf(stderr, "debatebot: the debate is not kept, so it cannot be resumed: %v\n", err)
		} else if st != nil {
			defer st.Close()
		}
	}

	repo := config.Default()
	if src.Config != "" {
		if repo, err = config.Parse([]byte(src.Config), src.ConfigName); err != nil {
			return err
		}
	}
	if src.Depth != "" {
		repo.Depth = src.Depth
	}
	protocol, err := repo.DebateProtocol(src.Protocol)
	if err != nil {
		return &usageError{"--protocol: " + err.Error()}
	}
	change, err := src.change(ctx, f.maxDiff)
	if err != nil {
		return err
	}
	agents, err := panel(repo, getenv, f.offline)
	if err != nil {
		return err
	}
	d := newDebate(repo, protocol, change, agents)
	d.Question = src.Question
	if isTerminal(stderr) {
		d.Observer = progress(stderr)
	}
	if src.Checkpoints || f.checkpoints {
		if protocol.Loop == nil {
			return &usageError{fmt.Sprintf("--checkpoints: the %s protocol (depth %q) has no rounds to pause between", protocol.Name, protocol.Depth)}
		}
		d.Protocol.Checkpoints = true
		d.Pause = terminalPause(stdin, stderr)
	}
	var t *toulmin.Transcript
	if prior != nil {
		if t, err = resumeFrom(d, prior, stderr); err != nil {
			return err
		}
	}
	if t == nil {
		if t, err = runKept(ctx, d, src, st, prior == nil, stderr); err != nil {
			return err
		}
	}
	return printTranscript(t, change, f.format, stdout)
}

// newDebate is the CLI's debate of change under repo's configuration and protocol, by agents.
func newDebate(repo *config.Repo, protocol toulmin.Protocol, change *change.Change, agents []toulmin.Agent) *review.Debate {
	return &review.Debate{
		Change: change, Trigger: "cli", Protocol: protocol, Agents: agents, Panel: repo.Panel(), Ignore: repo.Ignore,
		Weights: *repo.Weights, Thresholds: repo.VotingThresholds(), Concurrency: repo.LLM.Concurrency,
	}
}

// printTranscript writes the debate in the format asked for.
func printTranscript(t *toulmin.Transcript, change *change.Change, format string, stdout io.Writer) error {
	// What is printed leaves the process like a comment does (into CI logs, pastes, issues):
	// a secret a model quoted is redacted here too.
	if format == "sarif" {
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
	if format == "json" {
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
	_, err = io.WriteString(stdout, redact.Redact(md))
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
