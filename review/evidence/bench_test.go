package evidence

import (
	"testing"
)

// BenchmarkRun analyses the basic testdata module's base and head trees (two packages each).
func BenchmarkRun(b *testing.B) {
	for b.Loop() {
		runBasic(b)
	}
}
