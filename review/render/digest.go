package render

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// Bounds of the phase digest: the claims it quotes per phase, how long each may be, and how
// long the whole digest may be. The arguments in full are on the debate's page.
const (
	digestClaims    = 4
	digestClaimLen  = 160
	digestNoteLen   = 400
	maxDigestLength = 6000
)

// phaseDigest is the debate in a few lines: per phase, how many arguments were made and the
// first claims, most serious first; then the weighted vote. Agents with nothing to say in a
// phase are not listed.
func phaseDigest(t *toulmin.Transcript) string {
	var b strings.Builder
	for _, p := range t.Timeline {
		var args []toulmin.Argument
		for _, a := range t.Arguments {
			if a.Phase == p.Phase && a.Round == p.Round && strings.TrimSpace(a.Claim) != "" {
				args = append(args, a)
			}
		}
		if p.Phase == toulmin.PhaseEvidence {
			// Its notes say what the analyzers could read (whole trees, hunks only, and why).
			fmt.Fprintf(&b, "- **%s**: %d finding(s) from the analyzers.\n", p.Phase.Title(), len(t.Evidence))
			for _, n := range p.Notes {
				fmt.Fprintf(&b, "  - %s\n", Inline(scan.Clip(n, digestNoteLen)))
			}
			continue
		}
		if len(args) == 0 && p.Status == toulmin.StatusCompleted {
			continue // nothing was said
		}
		line := digestLine(t, p, args)
		if b.Len()+len(line) > maxDigestLength {
			b.WriteString("- The later phases are on the debate's page.\n")
			break
		}
		b.WriteString(line)
	}
	for _, c := range t.Checkpoints {
		// The guidance is whatever its author wrote: quoted inline, like the change's text.
		line := fmt.Sprintf("- Checkpoint after round %d: **%s**", c.AfterRound, c.Action)
		if c.By != "" {
			line += " by " + Inline(c.By)
		}
		if c.Guidance != "" {
			line += ": " + Inline(scan.Clip(c.Guidance, digestNoteLen))
		}
		b.WriteString(line + "\n")
	}
	var shares []string
	for _, o := range []voting.Option{voting.Approve, voting.ApproveWithChanges, voting.RequestChanges, voting.Escalate} {
		if s, ok := t.Shares[o]; ok {
			shares = append(shares, fmt.Sprintf("%s %.0f%%", strings.ReplaceAll(string(o), "_", " "), s*100))
		}
	}
	if len(shares) > 0 {
		fmt.Fprintf(&b, "- **Weighted vote:** %s.\n", strings.Join(shares, ", "))
	}
	return b.String()
}

// digestLine is one phase of the digest.
func digestLine(t *toulmin.Transcript, p toulmin.PhaseRecord, args []toulmin.Argument) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- **%s**", p.Phase.Title())
	if p.Phase.Answers() {
		fmt.Fprintf(&b, " (round %d)", p.Round)
	}
	if p.Status != toulmin.StatusCompleted {
		fmt.Fprintf(&b, ", %s", p.Status)
		if len(p.Notes) > 0 {
			fmt.Fprintf(&b, " (%s)", Inline(scan.Clip(strings.Join(p.Notes, "; "), digestNoteLen)))
		}
	}
	if len(args) == 0 {
		b.WriteString(": no arguments.\n")
		return b.String()
	}
	fmt.Fprintf(&b, ": %d argument(s).\n", len(args))
	ordered := append([]toulmin.Argument(nil), args...)
	sort.SliceStable(ordered, func(i, j int) bool { return severityRank(ordered[i]) > severityRank(ordered[j]) })
	// Agents that claim the same are one line.
	var claims []string
	who := map[string][]string{}
	for _, a := range ordered {
		c := strings.TrimSpace(a.Claim)
		if _, ok := who[c]; !ok {
			claims = append(claims, c)
		}
		if name := title(t, a.Agent); !slices.Contains(who[c], name) {
			who[c] = append(who[c], name)
		}
	}
	for i, c := range claims {
		if i == digestClaims {
			fmt.Fprintf(&b, "  - %d more.\n", len(claims)-digestClaims)
			break
		}
		fmt.Fprintf(&b, "  - %s: %s\n", strings.Join(who[c], ", "), Inline(scan.Clip(c, digestClaimLen)))
	}
	return b.String()
}

// severityRank orders arguments by severity, an argument without one last.
func severityRank(a toulmin.Argument) int {
	if a.Severity == "" {
		return -1
	}
	return a.Severity.Rank()
}
