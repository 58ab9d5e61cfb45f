package leak

import "testing"

// A leak in a test is the test's business: not reported.
func TestLeak(t *testing.T) {
	ch := make(chan int)
	go func() { ch <- 1 }()
}
