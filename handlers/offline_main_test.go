package handlers

import (
	"os"
	"testing"
)

// TestMain keeps the tests off the network: the type-checked analysis of Go trees downloads no
// module (DEBATEBOT_GOPROXY off) unless a test names a proxy of its own on loopback.
func TestMain(m *testing.M) {
	if err := os.Setenv("DEBATEBOT_GOPROXY", "off"); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}
