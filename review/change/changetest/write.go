package changetest

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes content to the file name, making its folders, and fails the test if it cannot.
func Write(t testing.TB, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
