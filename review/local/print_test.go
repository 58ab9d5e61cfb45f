package local

import (
	"bytes"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/toulmin"
)

func TestProgressShowsEachPhase(t *testing.T) {
	var buf bytes.Buffer
	show := Progress(&buf)
	rec := toulmin.PhaseRecord{Phase: toulmin.PhaseOpening, Status: toulmin.StatusRunning}
	show(toulmin.Event{Kind: toulmin.EventPhaseStarted, Phase: rec})
	rec.Status = toulmin.StatusCompleted
	show(toulmin.Event{Kind: toulmin.EventPhaseEnded, Phase: rec})
	rec.Phase, rec.Status = toulmin.PhaseRebuttal, toulmin.StatusTimedOut
	show(toulmin.Event{Kind: toulmin.EventPhaseEnded, Phase: rec})
	got := buf.String()
	for _, want := range []string{"… Opening Arguments", "✓ Opening Arguments (0s)\n", "✗ timed_out Rebuttals"} {
		if !strings.Contains(got, want) {
			t.Errorf("progress %q lacks %q", got, want)
		}
	}
}
