package local

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/store"
)

// List prints the debates of the store url (or the environment's), newest first.
func List(ctx context.Context, url string, stdout io.Writer, getenv func(string) string) error {
	st, err := OpenStore(ctx, url, getenv)
	if err != nil {
		return err
	}
	defer st.Close()
	ds, err := st.Debates(ctx)
	if err != nil {
		return err
	}
	if len(ds) == 0 {
		fmt.Fprintln(stdout, "no debates kept in the store yet")
		return nil
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tSTATE\tPROTOCOL\tPHASES\tTOKENS\tSUBJECT")
	for i := len(ds) - 1; i >= 0; i-- {
		d := ds[i]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\n", d.ID, stamp(d.StartedAt), state(d), d.Protocol, d.Phases, d.Prompt+d.Completion, subject(ctx, st, d))
	}
	tw.Flush()
	_, err = stdout.Write(b.Bytes())
	return err
}

// state says where a kept debate stands.
func state(d store.Debate) string {
	switch {
	case d.Decision != "":
		return d.Decision
	case d.Trigger != "cli":
		return "running or stopped (the App resumes it)"
	case d.Phases == 0:
		return "stopped before its first phase"
	}
	return "stopped: --resume"
}

// subject names what a kept debate is about: the App's pull request, or a local debate's diff,
// range or question.
func subject(ctx context.Context, st *store.Store, d store.Debate) string {
	if d.Repository != "" {
		return fmt.Sprintf("%s#%d (%s)", d.Repository, d.PRNumber, d.Trigger)
	}
	full, err := st.Debate(ctx, d.ID)
	if err != nil || len(full.Source) == 0 {
		return ""
	}
	var src Source
	if json.Unmarshal(full.Source, &src) != nil {
		return ""
	}
	switch src.Kind {
	case "question":
		return redact.Redact(scan.Clip(strings.Join(strings.Fields(src.Question), " "), 60))
	case "git":
		return "git " + src.Name
	}
	return src.Name
}

func stamp(t time.Time) string { return t.Local().Format("2006-01-02 15:04") }
