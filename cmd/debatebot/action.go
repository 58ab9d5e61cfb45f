package main

import (
	"context"
	"fmt"
	"io"

	"github.com/debatebot/debatebot/review/pipeline"
	"github.com/debatebot/debatebot/review/workflow"
)

// action runs one debate inside a GitHub Actions workflow on the pull request of its event, and
// publishes it as the App does (the transcript and decision comments by marker, the check run
// with its annotations, the escalation label) with the workflow token. Exit 0 on a completed
// debate whatever it decided, and for an event it does not debate (with a notice); 2 on bad
// input (the environment, the payload, the repository's configuration); 1 when GitHub fails.
func action(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string) (err error) {
	defer func() {
		if err != nil {
			workflow.Command(stdout, "error", err.Error())
		}
	}()
	if len(args) > 0 {
		return &pipeline.UsageError{Msg: fmt.Sprintf("action takes no arguments, got %q (it reads the workflow's environment)", args[0])}
	}
	a, err := workflow.New(stdout, getenv, version())
	if err != nil || a == nil {
		return err
	}
	rv, err := a.Review(ctx)
	if err != nil || rv == nil {
		return err
	}
	_, err = rv.Run(ctx)
	return err
}
