package local

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/review/pipeline"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/toulmin"
)

// Printer is the publisher of a local debate: its progress on the terminal, the debate on
// stdout in the format asked for.
type Printer struct {
	// Format is markdown, json or sarif; Version is the SARIF tool's.
	Format, Version string
	Stdout          io.Writer
	// Show, when set, shows each phase as it starts and ends (Progress on a terminal).
	Show func(toulmin.Event)
}

// Start implements pipeline.Publisher: a local debate has nothing to start.
func (p *Printer) Start(context.Context, *review.Debate) {}

// Progress implements pipeline.Publisher.
func (p *Printer) Progress(_ context.Context, e toulmin.Event) {
	if p.Show != nil {
		p.Show(e)
	}
}

// Publish implements pipeline.Publisher: the debate printed.
func (p *Printer) Publish(_ context.Context, r *pipeline.Result) error {
	return printTranscript(r.Transcript, r.Subject.Change, p.Format, p.Version, p.Stdout)
}

// CannotDebate implements pipeline.Publisher: why the change cannot be debated is the command's
// error.
func (p *Printer) CannotDebate(_ context.Context, ie *review.InputError) error { return ie }

// printTranscript writes the debate in the format asked for.
func printTranscript(t *toulmin.Transcript, change *change.Change, format, version string, stdout io.Writer) error {
	// What is printed leaves the process like a comment does (into CI logs, pastes, issues):
	// a secret a model quoted is redacted here too.
	if format == "sarif" {
		log, err := render.SARIF(t, change, render.SARIFOptions{Version: version})
		if err != nil {
			return err
		}
		redacted, err := publish.RedactJSON(log)
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
		redacted, err := publish.RedactJSON(b)
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
	md, err := render.Markdown(t, render.Options{})
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, redact.Redact(md))
	return err
}

// Progress shows each phase as it starts and ends.
func Progress(w io.Writer) func(toulmin.Event) {
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
