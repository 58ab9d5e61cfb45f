// Command debatebot reviews changes by a structured debate among stakeholder agents.
//
//	debatebot debate --diff change.diff      debate a unified diff (- for stdin), hunks only
//	debatebot debate --diff d.diff --dir B   the diff applied to B, a checkout of its base: whole trees
//	debatebot debate --git main..HEAD        debate a range of the repository here
//	debatebot debate --question "..."        debate a design question
//	debatebot debate --resume [ID]           go on with a kept debate (the newest stopped one without ID)
//	debatebot serve                          the GitHub App (its setup page registers it when none is configured)
//	debatebot action                         debate the pull request of a GitHub Actions workflow's event
//	debatebot version
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/review/local"
	"github.com/debatebot/debatebot/review/pipeline"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

const usage = `debatebot reviews changes by a structured debate among stakeholder agents.

Usage:
  debatebot debate (--diff FILE [--dir BASE] | --git BASE..HEAD | --question TEXT) [--format markdown|json|sarif] [flags]
  debatebot debate --resume [ID] | --list
  debatebot serve      (the GitHub App; with none configured yet and DEBATEBOT_PUBLIC_URL set,
                       it prints a link to its setup page, which registers the App)
  debatebot action    (inside a GitHub Actions workflow: see action.yml)
  debatebot stats [--format text|json]
  debatebot bench --cases PATH [--trees DIR] [--split dev|check|all] [--diff] [ID...]
  debatebot version

Run 'debatebot debate -h' for the debate flags.
`

// run is main without the process: tests call it with their own streams and environment.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	var err error
	switch args[0] {
	case "debate":
		err = debate(ctx, args[1:], stdin, stdout, stderr, getenv)
	case "action":
		err = action(ctx, args[1:], stdout, getenv)
	case "serve":
		err = serve(ctx, args[1:], stderr, getenv)
	case "stats":
		err = stats(ctx, args[1:], stdout, stderr, getenv)
	case "bench":
		err = bench(ctx, args[1:], stdout, stderr, getenv)
	case "version", "--version":
		fmt.Fprintln(stdout, "debatebot", version())
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		err = &pipeline.UsageError{Msg: fmt.Sprintf("unknown command %q (want debate, action, serve, stats, bench or version)", args[0])}
	}
	if err == nil {
		return exitOK
	}
	if errors.Is(err, errHelp) {
		return exitOK
	}
	if errors.Is(err, local.ErrStopped) {
		// Stopped on purpose at a checkpoint, and already told how to resume: not completed,
		// so not 0, but no error to print either.
		return exitError
	}
	fmt.Fprintf(stderr, "debatebot: %v\n", redact.Redact(err.Error()))
	var ue *pipeline.UsageError
	if errors.As(err, &ue) || isInputError(err) {
		return exitUsage
	}
	return exitError
}
