package evidence_test

import (
	"testing"
	"time"

	"github.com/debatebot/debatebot/review/evidence/scan"
)

// BenchmarkDebateWholeTree debates testdata/speed offline as `debatebot debate --diff
// change.diff --dir base` does: a written module of four packages (HTTP handlers, SQL store,
// webhook worker, command) whose change builds a query with Sprintf and drops a response body's
// Close. Each iteration materialises base and head, type-checks the changed packages in both
// (their dependencies' export data from the build cache after the first), runs every Go analyzer,
// gosec and the hand-written ones, and holds the debate; the speed target of a whole-tree debate
// (under 5 s median once the caches are warm) is checked against this figure.
func BenchmarkDebateWholeTree(b *testing.B) {
	const dir = "testdata/speed"
	debateCase(b, dir) // the build cache warm, as the target assumes
	var n int
	cpu := scan.ProcessCPU()
	for b.Loop() {
		n++
		tr := debateCase(b, dir)
		if len(citing(tr.evidence, "store/store.go", 70)) == 0 || len(citing(tr.evidence, "worker/worker.go", 60)) == 0 {
			b.Fatalf("the debate missed the written defects: %v", tr.evidence)
		}
	}
	// Processor time per debate: on a shared machine, wall time measures the others' load too.
	if used := scan.ProcessCPU() - cpu; used > 0 && n > 0 {
		b.ReportMetric((used / time.Duration(n)).Seconds(), "cpu-s/op")
	}
}
