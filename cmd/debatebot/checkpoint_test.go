package main

import (
	"strings"
	"testing"
)

// --checkpoints asks after each round on the terminal and reads the answers from stdin: a pipe
// drives it here. Guidance is recorded; end goes on to the decision.
func TestDebateCheckpointsFromStdin(t *testing.T) {
	args := []string{"debate", "--offline", "--diff", "../../examples/admin-export.diff", "--protocol", "extended", "--checkpoints"}
	code, md, errOut := runCmd(t, "what?\ng\nweigh the rollback\n", nil, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "Round 1 ended:") || !strings.Contains(errOut, "[C]ontinue, [G]uide, [E]nd, [Q]uit (resume later)? ") ||
		!strings.Contains(errOut, `"what?" is not an answer`) || !strings.Contains(errOut, "Guidance for the next round: ") {
		t.Errorf("the terminal did not ask as expected:\n%s", errOut)
	}
	if !strings.Contains(md, "- Checkpoint after round 1: **guide** by terminal: weigh the rollback") ||
		!strings.Contains(md, "cannot weigh the checkpoint's guidance: weigh the rollback") {
		t.Errorf("the transcript lacks the checkpoint or the offline agents' note:\n%s", md)
	}

	// End after round 1: the rounds stop there and the debate still decides.
	code, md, errOut = runCmd(t, "e\n", nil, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(md, "- Rounds: 1 (ended at the checkpoint after round 1 by terminal)") || !strings.Contains(md, "| Decision | 1 |") {
		t.Errorf("the rounds did not end at the checkpoint, or no decision followed:\n%s", md)
	}

	// Without answers the debate runs as the moderator judges, asking once.
	code, _, errOut = runCmd(t, "", nil, args...)
	if code != 0 || strings.Count(errOut, "[C]ontinue") != 1 || !strings.Contains(errOut, "no more input") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}

	// The answers come from stdin, so the diff cannot.
	if code, _, errOut = runCmd(t, "", nil, "debate", "--diff", "-", "--checkpoints"); code == 0 || !strings.Contains(errOut, "--checkpoints reads the answers from stdin") {
		t.Errorf("exit %d, stderr %s", code, errOut)
	}
	// A protocol without rounds has nowhere to pause.
	if code, _, errOut = runCmd(t, "", nil, "debate", "--offline", "--diff", "../../examples/admin-export.diff", "--protocol", "fast-track", "--checkpoints"); code == 0 || !strings.Contains(errOut, "no rounds to pause between") {
		t.Errorf("exit %d, stderr %s", code, errOut)
	}
}
