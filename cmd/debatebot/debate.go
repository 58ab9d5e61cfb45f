package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"golang.org/x/term"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/local"
	"github.com/debatebot/debatebot/review/pipeline"
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

// debateFlags are the debate command's flags: what to debate and how (local.Options), and how
// to show it.
type debateFlags struct {
	local.Options
	format        string
	offline, list bool
	// latest is --resume without an id: the newest debate that stopped before its decision.
	latest bool
}

// resumeFlag is --resume ID, or --resume alone for the newest stopped debate (latest).
type resumeFlag struct{ f *debateFlags }

func (r resumeFlag) String() string {
	if r.f == nil {
		return ""
	}
	return r.f.Resume
}

func (r resumeFlag) Set(v string) error {
	r.f.Resume, r.f.latest = "", v == "true"
	if v != "true" && v != "false" {
		r.f.Resume = v
	}
	return nil
}

// IsBoolFlag lets --resume stand alone; resumeArgs joins it to an id that follows it.
func (r resumeFlag) IsBoolFlag() bool { return true }

// resumeArgs joins "--resume ID" into "--resume=ID", since the flag may also stand alone.
func resumeArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "--resume" || a == "-resume") && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			out = append(out, a+"="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

func parseDebateFlags(args []string, stderr io.Writer) (*debateFlags, error) {
	f := &debateFlags{}
	fs := flag.NewFlagSet("debate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.Diff, "diff", "", "unified diff to debate (FILE, or - for stdin)")
	fs.StringVar(&f.Git, "git", "", "git range BASE..HEAD to debate, in the repository at --dir")
	fs.StringVar(&f.Question, "question", "", "a design question to debate (no code)")
	fs.StringVar(&f.format, "format", "markdown", "output: markdown (transcript and record), json (decision record) or sarif (the standing findings, SARIF 2.1.0)")
	fs.StringVar(&f.Protocol, "protocol", "", "standard, fast-track or extended (default: the config's, else standard)")
	fs.StringVar(&f.ConfigFile, "config", "", "a debatebot.yml to use (default: the embedded defaults)")
	fs.StringVar(&f.Depth, "depth", "", "quick (the openings alone), standard (one round of rebuttal) or deep (up to two, ending at convergence); default: the config's, else the protocol's rounds")
	fs.StringVar(&f.Dir, "dir", ".", "with --git: the repository; with --diff: a checkout of the diff's base (the head is the diff applied to a copy of it, for whole-tree analysis)")
	fs.BoolVar(&f.offline, "offline", false, "use offline agents even when a model is configured")
	fs.BoolVar(&f.Checkpoints, "checkpoints", false, "pause after each round and ask on the terminal: [C]ontinue, [G]uide (your guidance goes into the next round), [E]nd (synthesise now); answers are read from stdin")
	fs.Int64Var(&f.MaxDiff, "max-diff-bytes", review.DefaultMaxDiffBytes, "largest diff accepted")
	fs.Var(resumeFlag{f}, "resume", "resume the debate ID kept in the local store where it stopped (an interrupt, a [Q]uit at a checkpoint, a crash), or print it when it was decided; without ID: the newest stopped debate")
	fs.BoolVar(&f.list, "list", false, "list the debates kept in the local store, newest first")
	fs.StringVar(&f.StoreURL, "store", "", "where debates are kept for --resume and --list: sqlite:PATH, postgres://..., or off (default: $DEBATEBOT_DATABASE_URL, else debatebot.db in the user's data directory: $XDG_DATA_HOME/debatebot, or ~/.local/share/debatebot)")
	if err := fs.Parse(resumeArgs(args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "Usage: debatebot debate (--diff FILE [--dir BASE] | --git BASE..HEAD | --question TEXT | --resume [ID] | --list) [--format markdown|json|sarif] [flags]")
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return nil, errHelp
		}
		return nil, &pipeline.UsageError{Msg: strings.TrimSpace(err.Error()) + " (run 'debatebot debate -h' for the flags)"}
	}
	fs.Visit(func(fl *flag.Flag) { f.DirSet = f.DirSet || fl.Name == "dir" })
	if fs.NArg() > 0 {
		return nil, &pipeline.UsageError{Msg: fmt.Sprintf("unexpected argument %q (run 'debatebot debate -h' for the flags)", fs.Arg(0))}
	}
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	if f.list || f.Resume != "" || f.latest {
		// The debate's own flags come from the store; only how to run and show it may be given.
		what, allowed := "--resume", map[string]bool{"resume": true, "format": true, "offline": true, "checkpoints": true, "store": true}
		if f.list {
			what, allowed = "--list", map[string]bool{"list": true, "store": true}
		}
		for name := range given {
			if !allowed[name] {
				return nil, &pipeline.UsageError{Msg: fmt.Sprintf("--%s does not go with %s (a kept debate is resumed with the change, configuration and protocol it began with)", name, what)}
			}
		}
		if f.StoreURL == "off" {
			return nil, &pipeline.UsageError{Msg: what + " needs the store: --store off leaves nothing to read"}
		}
		if f.format != "markdown" && f.format != "json" && f.format != "sarif" {
			return nil, &pipeline.UsageError{Msg: fmt.Sprintf("--format %q: want markdown, json or sarif", f.format)}
		}
		return f, nil
	}
	n := 0
	for _, s := range []string{f.Diff, f.Git, f.Question} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return nil, &pipeline.UsageError{Msg: "give exactly one of --diff FILE, --git BASE..HEAD or --question TEXT (or --resume [ID], --list)"}
	}
	if f.DirSet && f.Question != "" {
		return nil, &pipeline.UsageError{Msg: "--dir goes with --git or --diff, not --question"}
	}
	if f.format != "markdown" && f.format != "json" && f.format != "sarif" {
		return nil, &pipeline.UsageError{Msg: fmt.Sprintf("--format %q: want markdown, json or sarif", f.format)}
	}
	if _, err := toulmin.ParseDepth(f.Depth); err != nil {
		return nil, &pipeline.UsageError{Msg: "--depth: " + err.Error()}
	}
	if f.Checkpoints && f.Diff == "-" {
		return nil, &pipeline.UsageError{Msg: "--checkpoints reads the answers from stdin, so the diff cannot come from it: give --diff FILE"}
	}
	return f, nil
}

// debate holds a debate on a local change or question, or resumes a kept one, and prints it: the
// flags build the source, the keeper (the local store) and the printer of the review pipeline.
func debate(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	f, err := parseDebateFlags(args, stderr)
	if err != nil {
		return err
	}
	if f.list {
		return local.List(ctx, f.StoreURL, stdout, getenv)
	}
	src, keeper, err := localSource(ctx, f, stdin, stderr, getenv)
	if err != nil {
		return err
	}
	if keeper != nil {
		defer keeper.Store.Close()
	}
	d, err := localDebate(src, f, stdin, stderr, getenv)
	if err != nil {
		return err
	}
	printer := &local.Printer{Format: f.format, Version: version(), Stdout: stdout}
	if isTerminal(stderr) {
		printer.Show = local.Progress(stderr)
	}
	rv := &pipeline.Review{Debate: d, Source: src, Publisher: printer}
	if keeper == nil {
		_, err = rv.Run(ctx)
		return err
	}
	rv.Keeper = keeper
	if _, err := rv.Run(ctx); err != nil {
		return keeper.Stopped(err)
	}
	return nil
}

// localSource returns what the debate is about and its keeper: the kept debate --resume names,
// or what the flags name, kept in the local store when it opens (a nil keeper: not kept; only
// --resume and --list need the store).
func localSource(ctx context.Context, f *debateFlags, stdin io.Reader, stderr io.Writer, getenv func(string) string) (*local.Source, *local.Keeper, error) {
	if f.Resume != "" || f.latest {
		st, err := local.OpenStore(ctx, f.StoreURL, getenv)
		if err != nil {
			return nil, nil, err
		}
		id := f.Resume
		if id == "" {
			if id, err = local.Latest(ctx, st); err != nil {
				st.Close()
				return nil, nil, err
			}
		}
		src, row, err := local.Resumable(ctx, st, id)
		if err != nil {
			st.Close()
			return nil, nil, err
		}
		src.MaxDiff = f.MaxDiff
		return src, &local.Keeper{Store: st, Source: src, Row: row, Stderr: stderr}, nil
	}
	src, err := local.NewSource(ctx, &f.Options, stdin)
	if err != nil {
		return nil, nil, err
	}
	st, err := local.OpenStore(ctx, f.StoreURL, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "debatebot: the debate is not kept, so it cannot be resumed: %v\n", err)
		return src, nil, nil
	}
	if st == nil {
		return src, nil, nil
	}
	return src, &local.Keeper{Store: st, Source: src, Stderr: stderr}, nil
}

// localDebate configures the debate of src: the configuration it began with (the embedded
// defaults, or its --config), its protocol and depth, the environment's agents, and the
// terminal's answers at checkpoints when asked for.
func localDebate(src *local.Source, f *debateFlags, stdin io.Reader, stderr io.Writer, getenv func(string) string) (*review.Debate, error) {
	repo := config.Default()
	if src.Config != "" {
		var err error
		if repo, err = config.Parse([]byte(src.Config), src.ConfigName); err != nil {
			return nil, err
		}
	}
	if src.Depth != "" {
		repo.Depth = src.Depth
	}
	protocol, err := repo.DebateProtocol(src.Protocol)
	if err != nil {
		return nil, &pipeline.UsageError{Msg: "--protocol: " + err.Error()}
	}
	agents, err := pipeline.Agents(repo, getenv, f.offline)
	if err != nil {
		return nil, err
	}
	d := pipeline.NewDebate(repo, protocol, agents, "cli")
	d.RunID = src.ID
	if src.Checkpoints || f.Checkpoints {
		if protocol.Loop == nil {
			return nil, &pipeline.UsageError{Msg: fmt.Sprintf("--checkpoints: the %s protocol (depth %q) has no rounds to pause between", protocol.Name, protocol.Depth)}
		}
		d.Protocol.Checkpoints = true
		d.Pause = local.TerminalPause(stdin, stderr)
	}
	return d, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
