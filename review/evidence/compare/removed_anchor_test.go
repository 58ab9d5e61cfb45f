package compare

import (
	"fmt"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

// goRounds derives a key with a cost from the message, bounded on both sides; head drops the
// upper bound, and the cost is used six lines further on.
const goRounds = `package kdf

import "errors"

func derive(h header, secret []byte) ([]byte, error) {
	rounds, err := h.rounds()
	if err != nil {
		return nil, err
	}
	if rounds <= 0 {
		return nil, errors.New("rounds must be positive")
	}
	if rounds > 100000 {
		return nil, errors.New("too many rounds")
	}

	salt := h.salt()
	name := h.name()
	size := h.size()
	label := []byte(name)
	label = append(label, 0)
	label = append(label, salt...)
	return stretch(secret, label, rounds, size), nil
}
`

// A removed check is cited on the line it guarded when the diff shows that line, else on the
// first statement after where the check was, which the diff shows (a review comment can sit only
// on a line of the diff); the message names the guarded line either way.
func TestRemovedCheckCitedInTheDiff(t *testing.T) {
	head := strings.Replace(goRounds, "\tif rounds > 100000 {\n\t\treturn nil, errors.New(\"too many rounds\")\n\t}\n", "", 1)
	for _, tc := range []struct {
		name   string
		narrow bool
		want   string
	}{
		{"whole file shown", false, "check-removed@kdf/derive.go:20"},
		{"three lines of context", true, "check-removed@kdf/derive.go:14"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := changetest.Versions(t, [3]string{"kdf/derive.go", goRounds, head})
			if tc.narrow {
				f := c.Files[0]
				f.Hunks = changetest.NarrowHunks(f.Hunks[0].Lines, 3)
				f.Reindex()
			}
			ev, _, err := scan.GatherWithNotes(t.Context(), c, []scan.Analyzer{RemovedAnalyzer{}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range ev {
				got = append(got, fmt.Sprintf("%s@%s:%d", e.Rule, e.Path, e.Line))
				if !strings.Contains(e.Message, "it guarded line 20") {
					t.Errorf("message %q does not name the guarded line", e.Message)
				}
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("findings %v, want %s", got, tc.want)
			}
		})
	}
}
