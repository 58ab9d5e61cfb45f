package compare

import (
	"context"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

const handshakeBase = `function handshake(req, socket) {
  const upgrade = req.headers.upgrade;
  const size = req.options.size;

  if (upgrade === undefined || upgrade.toLowerCase() !== 'websocket') {
    return reject(socket, 400);
  }
  const limit = typeof size !== 'undefined' ? size + 1 : 16;
  return accept(socket, limit);
}
`

func nullishFindings(t *testing.T, files ...[3]string) []string {
	t.Helper()
	got, _ := analyzerFindings(t, NullishAnalyzer{}, changetest.Versions(t, files...))
	return got
}

// A test for undefined dropped from a condition whose rewritten line still dereferences the value
// (through the name its declaration gave it) or computes with it is reported on that line; the
// same rewrite that tests the value another way (!x, ?., ??, an earlier test) is not.
func TestNullishCheckDropped(t *testing.T) {
	head := strings.NewReplacer("  const upgrade = req.headers.upgrade;\n", "",
		"if (upgrade === undefined || upgrade.toLowerCase()", "if (req.headers.upgrade.toLowerCase()",
		"typeof size !== 'undefined' ? size + 1", "size !== 0 ? size + 1").Replace(handshakeBase)
	want := "check-removed@lib/handshake.js:4 check-removed@lib/handshake.js:7"
	if got := nullishFindings(t, [3]string{"lib/handshake.js", handshakeBase, head}); strings.Join(got, " ") != want {
		t.Errorf("findings %v, want %s", got, want)
	}

	benign := map[string]string{
		"negation": strings.NewReplacer("upgrade === undefined ||", "!upgrade ||",
			"typeof size !== 'undefined' ? size + 1", "size ? size + 1").Replace(handshakeBase),
		"optional chain": strings.NewReplacer("upgrade === undefined || upgrade.toLowerCase()", "upgrade?.toLowerCase()",
			"typeof size !== 'undefined' ? size + 1 : 16", "(size ?? 15) + 1").Replace(handshakeBase),
		"earlier test": strings.NewReplacer("  const upgrade = req.headers.upgrade;\n", "  if (!req.headers.upgrade) return reject(socket, 400);\n",
			"if (upgrade === undefined || upgrade.toLowerCase()", "if (req.headers.upgrade.toLowerCase()").Replace(handshakeBase),
	}
	for name, head := range benign {
		if got := nullishFindings(t, [3]string{"lib/handshake.js", handshakeBase, head}); len(got) > 0 {
			t.Errorf("%s: findings %v, want none", name, got)
		}
	}
}

// On a bare diff (no file contents) the dropped test is still reported, from the hunks, and the
// finding says it saw the hunks only; a test of the value the hunk shows above the rewritten line
// keeps it quiet.
func TestNullishCheckDroppedHunksOnly(t *testing.T) {
	head := strings.NewReplacer("  const upgrade = req.headers.upgrade;\n", "",
		"if (upgrade === undefined || upgrade.toLowerCase()", "if (req.headers.upgrade.toLowerCase()").Replace(handshakeBase)
	ev, _, err := scan.GatherWithNotes(context.Background(), changetest.HunksOnly(changetest.Versions(t, [3]string{"lib/handshake.js", handshakeBase, head}), 3), []scan.Analyzer{NullishAnalyzer{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != 1 || ev[0].Line != 4 || !strings.HasSuffix(ev[0].Message, FragmentNote) {
		t.Fatalf("findings %+v, want one at line 4 that says it saw the hunks only", ev)
	}

	tested := strings.NewReplacer("  const upgrade = req.headers.upgrade;\n", "  if (!req.headers.upgrade) return reject(socket, 400);\n",
		"if (upgrade === undefined || upgrade.toLowerCase()", "if (req.headers.upgrade.toLowerCase()").Replace(handshakeBase)
	ev, _, err = scan.GatherWithNotes(context.Background(), changetest.HunksOnly(changetest.Versions(t, [3]string{"lib/handshake.js", handshakeBase, tested}), 3), []scan.Analyzer{NullishAnalyzer{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != 0 {
		t.Errorf("findings %+v, want none: the hunk tests the header first", ev)
	}
}
