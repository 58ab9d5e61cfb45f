package review

import (
	"os"
	"testing"
)

// TestMain keeps the tests off the network: the type-checked analysis downloads no module
// unless a test names a proxy of its own (a fake one on loopback).
func TestMain(m *testing.M) {
	if err := os.Setenv("DEBATEBOT_GOPROXY", "off"); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}
