package main

import (
	"fmt"
	"os"
	"testing"
)

// binDir holds the debatebot binary that buildBinary builds once for the whole test run.
var binDir string

// TestMain keeps the tests off the network: the type-checked analysis of Go trees downloads no
// module (DEBATEBOT_GOPROXY off) unless a test names a proxy of its own on loopback. It also makes
// the directory of the shared binary, and removes it after the tests.
func TestMain(m *testing.M) {
	if err := os.Setenv("DEBATEBOT_GOPROXY", "off"); err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "debatebot-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "a directory for the test binary:", err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, "removing the test binary:", err)
	}
	os.Exit(code)
}
