package local

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/debatebot/debatebot/toulmin"
)

// TerminalPause asks on the terminal at each checkpoint between rounds: [C]ontinue, [G]uide or
// [E]nd, or [Q]uit to resume later with --resume. It reads answers line by line from in, so that a pipe can drive it; "g TEXT" gives the
// guidance on the same line, a bare "g" asks for it on the next. When in runs dry the debate
// continues as the moderator judged, without asking again.
func TerminalPause(in io.Reader, out io.Writer) toulmin.RoundCheckpoint {
	lines := make(chan string)
	var readErr error
	go func() {
		// One reader for the whole debate: a read left waiting when a checkpoint timed out
		// must hand its line to the next checkpoint, not lose it.
		defer close(lines)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			lines <- sc.Text()
		}
		readErr = sc.Err()
	}()
	dry := false
	next := func(ctx context.Context) (string, bool, error) {
		select {
		case l, ok := <-lines:
			if !ok && readErr != nil {
				return "", false, fmt.Errorf("failed to read the answer from stdin: %w", readErr)
			}
			return strings.TrimSpace(l), ok, nil
		case <-ctx.Done():
			fmt.Fprintln(out)
			return "", false, ctx.Err()
		}
	}
	return func(ctx context.Context, p toulmin.Pause) (toulmin.CheckpointAnswer, error) {
		if dry {
			return toulmin.CheckpointAnswer{Action: toulmin.CheckpointContinue, By: "terminal (no input left)"}, nil
		}
		j := p.Judgement
		fmt.Fprintf(out, "\nRound %d ended: %s, convergence %.0f%%, %d new argument(s). %s\n", p.Round,
			strings.ReplaceAll(string(j.Verdict), "_", " "), j.Convergence*100, j.New, j.Detail)
		for {
			fmt.Fprint(out, "[C]ontinue, [G]uide, [E]nd, [Q]uit (resume later)? ")
			line, ok, err := next(ctx)
			if err != nil {
				return toulmin.CheckpointAnswer{}, err
			}
			if !ok {
				dry = true
				fmt.Fprintln(out, "\nno more input: the debate continues without asking")
				return toulmin.CheckpointAnswer{Action: toulmin.CheckpointContinue, By: "terminal (no input left)"}, nil
			}
			word, rest, _ := strings.Cut(line, " ")
			switch strings.ToLower(word) {
			case "c", "continue", "":
				return toulmin.CheckpointAnswer{Action: toulmin.CheckpointContinue, By: "terminal"}, nil
			case "e", "end":
				return toulmin.CheckpointAnswer{Action: toulmin.CheckpointEnd, By: "terminal"}, nil
			case "q", "quit":
				// The rounds so far are kept in the store: --resume asks this checkpoint again.
				return toulmin.CheckpointAnswer{}, ErrQuit
			case "g", "guide":
				text := strings.TrimSpace(rest)
				for text == "" {
					fmt.Fprint(out, "Guidance for the next round: ")
					if text, ok, err = next(ctx); err != nil {
						return toulmin.CheckpointAnswer{}, err
					} else if !ok {
						dry = true
						fmt.Fprintln(out, "\nno guidance given before the input ended: the debate continues")
						return toulmin.CheckpointAnswer{Action: toulmin.CheckpointContinue, By: "terminal (no input left)"}, nil
					}
				}
				return toulmin.CheckpointAnswer{Action: toulmin.CheckpointGuide, Guidance: text, By: "terminal"}, nil
			default:
				fmt.Fprintf(out, "%q is not an answer: type c, g (with your guidance), e or q\n", line)
			}
		}
	}
}
